// Up to $batch summaries of a session that covered a purged message (from its position
// $from_seq on): they quote it. `covered`: "kind/up_to" of each, which the purge's end writes
// again from the messages left.
MATCH (s:Summary {workspace: $workspace, session: $session})
WHERE s.up_to_message >= $from_seq
WITH s, s.kind + '/' + toString(s.up_to_message) AS covered
LIMIT $batch
DETACH DELETE s
RETURN count(*) AS deleted, collect(covered) AS covered
