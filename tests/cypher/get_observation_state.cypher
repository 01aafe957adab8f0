// A belief's invalidation state, whatever it is (tests only).
MATCH (o:Observation {workspace: $workspace, id: $id})
RETURN o.content AS content, o.stale AS stale, o.stale_reason AS stale_reason,
       o.reconcile_pending AS pending, o.deleted_at IS NOT NULL AS deleted,
       o.superseded_at IS NOT NULL AS superseded, o.times_derived AS times_derived,
       [(o)-[:DERIVED_FROM]->(p:Observation) | p.id] AS premises
