// A message of the fewest properties a move reads, sent by $peer (as a post writes it, in a
// transaction the test holds open).
MATCH (p:Peer {workspace: $workspace, name: $peer})
CREATE (m:Message {id: $id, workspace: $workspace, session: $session, peer: $peer,
                   content: $content, seq: $seq, created_at: datetime()})
CREATE (m)-[:SENT_BY]->(p)
RETURN m.id AS id
