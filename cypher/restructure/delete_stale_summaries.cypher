// Summaries that covered a deleted or edited message quote it: removed, so none of its text
// stays readable. One row per kind removed, with the last message the latest of them covered:
// the caller queues that kind's summary again up to there, from what is left.
MATCH (s:Summary {workspace: $workspace, session: $session})
WHERE s.up_to_message >= $from_seq
WITH s, s.kind AS kind, s.up_to_message AS up_to
DETACH DELETE s
RETURN kind, max(up_to) AS up_to
