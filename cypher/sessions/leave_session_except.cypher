MATCH (p:Peer {workspace: $workspace})-[r:PARTICIPATES_IN]->(s:Session {workspace: $workspace, name: $session})
WHERE r.left_at IS NULL AND NOT p.name IN $keep
SET r.left_at = $now
RETURN count(r) AS left
