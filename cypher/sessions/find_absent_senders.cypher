// Senders among $peers that are not present in the session now (no open window).
MATCH (s:Session {workspace: $workspace, name: $session})
UNWIND $peers AS name
OPTIONAL MATCH (p:Peer {workspace: $workspace, name: name})
WITH s, name, p
WHERE p IS NULL OR NOT EXISTS { (p)-[r:PARTICIPATES_IN]->(s) WHERE r.left_at IS NULL }
RETURN name
