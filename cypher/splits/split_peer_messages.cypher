// Up to $batch of the peer's messages in the given sessions become its sub-peer's: sender,
// peer_key (which the message fulltext index filters on) and the SENT_BY edge.
MATCH (m:Message {workspace: $workspace, peer: $peer})
WHERE m.session IN $sessions
WITH m
LIMIT $batch
MATCH (c:Peer {workspace: $workspace, name: $child})
OPTIONAL MATCH (m)-[sent:SENT_BY]->(:Peer)
DELETE sent
CREATE (m)-[:SENT_BY]->(c)
SET m.peer = $child, m.peer_key = $peer_key
RETURN count(m) AS moved
