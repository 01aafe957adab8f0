// The premises (observations it was derived from) of each belief in $ids, by id: what Honcho's
// clients read as a conclusion's `source_ids`; a deleted premise is none any more.
UNWIND $ids AS id
MATCH (o:Observation {id: id, workspace: $workspace})
RETURN o.id AS id,
       [(o)-[:DERIVED_FROM]->(p:Observation)
          WHERE p.workspace = $workspace AND p.deleted_at IS NULL | p.id] AS premises
