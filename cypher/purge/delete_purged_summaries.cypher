// Up to $batch summaries of a session that covered a purged message (from its position
// $from_seq on): they quote it.
MATCH (s:Summary {workspace: $workspace, session: $session})
WHERE s.up_to_message >= $from_seq
WITH s
LIMIT $batch
DETACH DELETE s
RETURN count(*) AS deleted
