// The scope's own vector index, once published (graph/repo/scope_index.py); null before.
OPTIONAL MATCH (:Peer {workspace: $workspace, name: $observer})-[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
RETURN r.vector_index AS index
