// The representation's beliefs awaiting reconciliation (stale by an invalidation, neither
// deleted nor superseded), oldest invalidation first, with what grounds each: its premises
// with their state (current: live and still in this representation, as a premise must be),
// and its source messages (live or deleted) with the quoted spans.
MATCH (o:Observation)
USING INDEX o:Observation(scope_key, reconcile_pending)
WHERE o.scope_key = $scope AND o.reconcile_pending = true AND o.workspace = $workspace
  AND o.deleted_at IS NULL AND o.superseded_at IS NULL
WITH o
ORDER BY o.stale_at, o.id
LIMIT $limit
RETURN o {.id, .level, .content, .stale_reason, version: coalesce(o.stale_version, 0)} AS belief,
       [(o)-[:DERIVED_FROM]->(p:Observation) WHERE p.workspace = $workspace
          | p {.id, .content, .level, .reconcile_pending, .session,
               current: p.deleted_at IS NULL AND p.superseded_at IS NULL
                        AND NOT coalesce(p.stale, false) AND p.scope_key = o.scope_key}]
         AS premises,
       [(o)-[d:DERIVED_FROM]->(m:Message) WHERE m.workspace = $workspace
          | {id: m.id, live: m.deleted_at IS NULL, content: m.content, span: d.span}] AS sources
