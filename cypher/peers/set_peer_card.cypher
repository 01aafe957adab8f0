// An app writes the card itself: its lines cite nothing (a dream keeps them as they are).
MATCH (a:Peer {workspace: $workspace, name: $observer})
MATCH (b:Peer {workspace: $workspace, name: $observed})
MERGE (a)-[r:OBSERVES]->(b)
SET r.card = $card, r.card_support = [line IN $card | ''], r.card_updated_at = $now
RETURN r.card AS card, r.card_support AS card_support, r.card_updated_at AS updated_at
