// Current explicit beliefs of a representation (stale ones in $settled count: the dream's
// reconciliation keeps them) that make one of the given claims (signed keys
// earlier dreams stored), through the (scope_key, claim_key) index.
UNWIND $claims AS claim
MATCH (o:Observation)
USING INDEX o:Observation(scope_key, claim_key)
WHERE o.scope_key = $scope AND o.claim_key = claim
  AND o.workspace = $workspace AND o.deleted_at IS NULL AND o.superseded_at IS NULL
  AND (NOT coalesce(o.stale, false) OR o.id IN $settled) AND NOT o.id IN $exclude
RETURN o {.id, .content, .level, .valid_at, .created_at, .session, .claim_key,
          // When a live message last stated it (a repeat merged into it may be later).
          stated_last: COLLECT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                 WHERE m.deleted_at IS NULL
                                 RETURN m.created_at ORDER BY m.created_at DESC LIMIT 1 }[0]}
       AS observation
LIMIT $limit
