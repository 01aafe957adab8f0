// The representation's beliefs awaiting reconciliation (stale by an invalidation, not
// deleted), oldest invalidation first, with what grounds each: its premises with their state
// (current: live and still in this representation, as a premise must be; stands: the same
// but for staleness, which a verdict in this pass may lift) and its source
// messages (live or deleted) with the quoted spans. A superseded belief is history: it is
// judged too, so a version whose only evidence went is tombstoned like the current one, and
// for it a premise stands while it is neither deleted nor stale (a later version of a premise
// does not take away what an earlier belief rested on). `replaced_by`: the current version a
// correction made of the premise, which a kept belief is relinked to (reconcile_beliefs.cypher),
// or null.
MATCH (o:Observation)
USING INDEX o:Observation(scope_key, reconcile_pending)
WHERE o.scope_key = $scope AND o.reconcile_pending = true AND o.workspace = $workspace
  AND o.deleted_at IS NULL
WITH o
ORDER BY o.stale_at, o.id
LIMIT $limit
RETURN o {.id, .level, .content, .stale_reason, .session, .valid_at,
          version: coalesce(o.stale_version, 0),
          superseded: o.superseded_at IS NOT NULL} AS belief,
       [(o)-[:DERIVED_FROM]->(p:Observation) WHERE p.workspace = $workspace
          | p {.id, .content, .level, .reconcile_pending, .session, .valid_at,
               // When a live message last stated it (a repeat may be later than valid_at).
               stated_last: COLLECT { MATCH (p)-[:DERIVED_FROM]->(k:Message)
                                      WHERE k.deleted_at IS NULL
                                      RETURN k.created_at ORDER BY k.created_at DESC
                                      LIMIT 1 }[0],
               stands: p.deleted_at IS NULL AND p.scope_key = o.scope_key
                       AND (p.superseded_at IS NULL OR o.superseded_at IS NOT NULL),
               current: p.deleted_at IS NULL AND NOT coalesce(p.stale, false)
                        AND p.scope_key = o.scope_key
                        AND (p.superseded_at IS NULL OR o.superseded_at IS NOT NULL),
               replaced_by: COLLECT { MATCH (p)<-[:SUPERSEDES {origin: 'correction'}]-(n:Observation)
                                      WHERE n.workspace = $workspace AND n.scope_key = o.scope_key
                                        AND n.deleted_at IS NULL AND n.superseded_at IS NULL
                                        AND NOT coalesce(n.stale, false)
                                      RETURN n.id LIMIT 1 }[0]}]
         AS premises,
       [(o)-[d:DERIVED_FROM]->(m:Message) WHERE m.workspace = $workspace
          | {id: m.id, live: m.deleted_at IS NULL, content: m.content, span: d.span,
             created_at: m.created_at, session: m.session}] AS sources
