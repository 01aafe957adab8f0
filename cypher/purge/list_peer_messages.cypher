// Every message a peer sent, tombstoned ones included: what purging the peer erases.
MATCH (m:Message {workspace: $workspace, peer: $peer})
RETURN m.id AS id, m.session AS session, m.seq AS seq
