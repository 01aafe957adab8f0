// What is left of the older layout in a workspace after the migration.
RETURN COUNT { MATCH (o:ObsScope_legacytest) } AS labelled,
       COUNT { MATCH (o:Observation {workspace: $workspace}) WHERE o.scope_key IS NULL OR o.valid_at IS NULL } AS unkeyed_beliefs,
       COUNT { MATCH (m:Message {workspace: $workspace}) WHERE m.session_key IS NULL OR m.peer_key IS NULL OR m.workspace_key IS NULL } AS unkeyed_messages,
       COUNT { MATCH (:Peer {workspace: $workspace})-[r:OBSERVES]->() WHERE r.vector_label IS NOT NULL } AS marked_edges,
       COLLECT { MATCH (s:BeliefgraphSchema {name: 'beliefgraph'}) RETURN s.version }[0] AS version
