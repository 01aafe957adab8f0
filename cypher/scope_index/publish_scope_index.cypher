// Search may use the scope's index from now on (it is online and holds every belief).
MATCH (:Peer {workspace: $workspace, name: $observer})-[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
SET r.vector_index = $index
RETURN r.vector_index AS index
