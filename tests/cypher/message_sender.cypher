// Who a message is sent by: its `peer` property and its SENT_BY edge.
MATCH (m:Message {workspace: $workspace, id: $id})
OPTIONAL MATCH (m)-[:SENT_BY]->(p:Peer)
RETURN m.peer AS peer, p.name AS sent_by
