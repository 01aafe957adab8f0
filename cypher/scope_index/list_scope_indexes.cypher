// The scopes of a workspace that have (or are getting) an index of their own.
MATCH (a:Peer {workspace: $workspace})-[r:OBSERVES]->(b:Peer)
WHERE r.vector_label IS NOT NULL
RETURN a.name AS observer, b.name AS observed, r.vector_label AS label, r.vector_index AS index
