// The published vector index (or null) of each (observer, observed) scope in $scopes.
UNWIND $scopes AS s
OPTIONAL MATCH (:Peer {workspace: $workspace, name: s.observer})-[r:OBSERVES]->(:Peer {workspace: $workspace, name: s.observed})
RETURN s.observer AS observer, s.observed AS observed, r.vector_index AS index
