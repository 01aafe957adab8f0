// A bench workspace's message count, and some of its messages as stored (vector, session,
// speaker): what a reused synthetic corpus is checked against.
MATCH (m:Message {workspace: $workspace})
WITH count(m) AS total
UNWIND $ids AS id
OPTIONAL MATCH (m:Message {workspace: $workspace, id: id})
RETURN total, id, m.embedding AS embedding, m.session AS session, m.peer AS peer
