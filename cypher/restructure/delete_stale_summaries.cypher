// Summaries that covered a deleted or edited message quote it: removed, so none of its text
// stays readable; the summarizer writes new ones as messages arrive.
MATCH (s:Summary {workspace: $workspace, session: $session})
WHERE s.up_to_message >= $from_seq
DETACH DELETE s
RETURN count(*) AS deleted
