MATCH (s:Summary {workspace: $workspace, session: $session})
WHERE $kind IS NULL OR s.kind = $kind
RETURN s {.*} AS summary
ORDER BY s.up_to_message DESC, s.kind
LIMIT $limit
