MATCH (s:Session {workspace: $workspace, name: $session})
UNWIND $messages AS props
MATCH (p:Peer {workspace: $workspace, name: props.peer})
CREATE (m:Message)
SET m = props
CREATE (m)-[:IN]->(s)
CREATE (m)-[:SENT_BY]->(p)
RETURN m {.*, embedding: null, passage_embeddings: null} AS message
ORDER BY m.seq
