// What an older layout left on a workspace's nodes: a per-representation label and OBSERVES
// marks, beliefs without scope_key or valid_at, messages without fulltext keys; and the graph's
// layout version set back.
MATCH (o:Observation {workspace: $workspace})
SET o:ObsScope_legacytest
REMOVE o.scope_key, o.valid_at
WITH count(o) AS beliefs
MATCH (:Peer {workspace: $workspace})-[r:OBSERVES]->(:Peer)
SET r.vector_label = 'ObsScope_legacytest', r.vector_index = 'observation_scope_legacytest'
WITH beliefs, count(r) AS edges
MATCH (m:Message {workspace: $workspace})
REMOVE m.workspace_key, m.session_key, m.peer_key
WITH beliefs, edges, count(m) AS messages
MATCH (s:BeliefgraphSchema {name: 'beliefgraph'})
SET s.version = 1
RETURN beliefs, edges, messages
