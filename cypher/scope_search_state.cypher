// What the vector half of a scoped search needs in one round trip: the scope's own index if
// it is published, else how many beliefs the scope holds (to choose exact scan or global index).
OPTIONAL MATCH (:Peer {workspace: $workspace, name: $observer})-[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
WITH r.vector_index AS index
RETURN index,
       CASE WHEN index IS NULL
            THEN COUNT { MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed}) }
       END AS total
