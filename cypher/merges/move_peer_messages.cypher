// Up to $batch of the source peer's messages become the target's: sender, peer_key (which the
// message fulltext index filters on) and the SENT_BY edge. Repeating it moves the next batch.
MATCH (m:Message {workspace: $workspace, peer: $source})
WITH m
LIMIT $batch
MATCH (t:Peer {workspace: $workspace, name: $target})
OPTIONAL MATCH (m)-[sent:SENT_BY]->(:Peer)
DELETE sent
CREATE (m)-[:SENT_BY]->(t)
SET m.peer = $target, m.peer_key = $peer_key
RETURN count(m) AS moved
