MATCH (s:Summary {workspace: $workspace, session: $session, kind: $kind})
RETURN s {.*} AS summary
ORDER BY s.up_to_message DESC
LIMIT 1
