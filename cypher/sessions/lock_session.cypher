// Takes the session node's write lock for the rest of the transaction. Writers that read
// before they write take it first, in its own statement so that what they read next is read
// under it: a membership change (an open window, read then created) and a summarizer's write
// (the count of summary resets, reset_summaries.cypher). Adding messages takes it by reserving
// their numbers.
MATCH (s:Session {workspace: $workspace, name: $session})
SET s.write_lock = true
REMOVE s.write_lock
RETURN s.name AS name
