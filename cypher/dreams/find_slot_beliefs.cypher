// Current explicit beliefs of a representation (stale ones in $settled count: the dream's
// reconciliation keeps them) that fill the given slots (keys earlier dreams
// stored; reasoners/dreamer/slots.py), through the (scope_key, slot) index, plus every slot
// starting with one of $prefixes (family members and pets, for the peer card).
CALL () {
  UNWIND $slots AS slot
  MATCH (o:Observation)
  USING INDEX o:Observation(scope_key, slot)
  WHERE o.scope_key = $scope AND o.slot = slot
  RETURN o
  UNION
  UNWIND $prefixes AS prefix
  MATCH (o:Observation)
  USING INDEX o:Observation(scope_key, slot)
  WHERE o.scope_key = $scope AND o.slot STARTS WITH prefix
  RETURN o
}
WITH o
WHERE o.workspace = $workspace AND o.deleted_at IS NULL AND o.superseded_at IS NULL
  AND (NOT coalesce(o.stale, false) OR o.id IN $settled) AND NOT o.id IN $exclude
RETURN o {.id, .content, .level, .valid_at, .created_at, .session, .slot,
          // When a live message last stated it (a repeat merged into it may be later).
          stated_last: COLLECT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                 WHERE m.deleted_at IS NULL
                                 RETURN m.created_at ORDER BY m.created_at DESC LIMIT 1 }[0]}
       AS observation
LIMIT $limit
