MATCH (s:Session {workspace: $workspace, name: $session})
UNWIND $messages AS props
MATCH (p:Peer {workspace: $workspace, name: props.peer})
CREATE (m:Message)
SET m = props
CREATE (m)-[:IN]->(s)
CREATE (m)-[:SENT_BY]->(p)
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.seq
