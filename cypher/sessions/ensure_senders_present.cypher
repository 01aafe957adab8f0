// A peer that sends a message is present in its session: open a window with the default
// observation settings for each sender that has none open. Existing windows are untouched.
MATCH (s:Session {workspace: $workspace, name: $session})
UNWIND $peers AS name
MATCH (p:Peer {workspace: $workspace, name: name})
WHERE NOT EXISTS { (p)-[r:PARTICIPATES_IN]->(s) WHERE r.left_at IS NULL }
CREATE (p)-[:PARTICIPATES_IN {observe_me: true, observe_others: true, joined_at: $now}]->(s)
RETURN count(*) AS joined
