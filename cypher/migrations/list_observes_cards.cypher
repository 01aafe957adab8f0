// Representations whose peer card is still on the OBSERVES edge (layouts before version 3).
MATCH (a:Peer)-[r:OBSERVES]->(b:Peer)
WHERE r.card IS NOT NULL OR r.card_support IS NOT NULL OR r.card_updated_at IS NOT NULL
RETURN a.workspace AS workspace, a.name AS observer, b.name AS observed
LIMIT $limit
