// The OBSERVES edges' record of a representation's own vector index (an earlier layout).
MATCH (:Peer)-[r:OBSERVES]->(:Peer)
WHERE r.vector_label IS NOT NULL OR r.vector_index IS NOT NULL
REMOVE r.vector_label, r.vector_index
RETURN count(r) AS cleared
