// Counts a change to what the session's summaries may quote (a message deleted, edited or
// purged), holding the session's lock for the rest of the transaction. Run it before the
// summaries that quote the change are deleted: a summarizer that read the session before the
// change then finds the count moved and writes nothing, and one that committed first has its
// summary deleted by the statement that follows.
MATCH (s:Session {workspace: $workspace, name: $session})
SET s.summary_resets = coalesce(s.summary_resets, 0) + 1
RETURN s.summary_resets AS resets
