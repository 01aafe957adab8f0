// The premises (observations it was derived from) of each belief in $ids, by id: what Honcho's
// clients read as a conclusion's `source_ids`.
UNWIND $ids AS id
MATCH (o:Observation {id: id, workspace: $workspace})
RETURN o.id AS id,
       [(o)-[:DERIVED_FROM]->(p:Observation) WHERE p.workspace = $workspace | p.id] AS premises
