MATCH (s:Session {workspace: $workspace})
WHERE ($after IS NULL OR s.name > $after)
  AND ($active IS NULL OR s.active = $active)
  AND all(kv IN $meta_kv WHERE kv IN s.meta_kv)
  AND ($peer IS NULL OR EXISTS { (:Peer {workspace: $workspace, name: $peer})-[:PARTICIPATES_IN]->(s) })
RETURN s {.*} AS session
ORDER BY s.name
LIMIT $limit
