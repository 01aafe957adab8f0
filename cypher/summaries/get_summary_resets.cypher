// How often the session's messages were deleted, edited or purged (reset_summaries.cypher).
MATCH (s:Session {workspace: $workspace, name: $session})
RETURN coalesce(s.summary_resets, 0) AS resets
