// A peer card as layouts before version 3 kept it: on the OBSERVES edge.
MATCH (a:Peer {workspace: $workspace, name: $observer})
MATCH (b:Peer {workspace: $workspace, name: $observed})
MERGE (a)-[r:OBSERVES]->(b)
SET r.card = $card, r.card_support = $support, r.card_updated_at = datetime()
RETURN count(r) AS written
