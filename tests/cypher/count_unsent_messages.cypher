// Messages of a workspace with no SENT_BY edge: each names a sender the graph no longer holds
// (tests only).
MATCH (m:Message {workspace: $workspace})
WHERE NOT EXISTS { (m)-[:SENT_BY]->(:Peer) }
RETURN count(m) AS unsent
