// A belief's stored embedding.
MATCH (o:Observation {id: $id})
RETURN o.embedding AS embedding
