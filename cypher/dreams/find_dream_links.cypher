// Current inductions and contradictions of a representation that cite any of $ids, with all
// their premise ids: a dream extends an induction rather than repeating it, and flags a
// contradiction once. Only current premises: a new induction cites what still holds.
UNWIND $ids AS id
MATCH (d:Observation)-[:DERIVED_FROM]->(:Observation {id: id, workspace: $workspace})
WHERE d.workspace = $workspace AND d.scope_key = $scope
  AND d.level IN ['inductive', 'contradiction']
  AND d.deleted_at IS NULL AND d.superseded_at IS NULL AND NOT coalesce(d.stale, false)
WITH DISTINCT d
RETURN d {.id, .content, .level, .valid_at, .created_at, .session} AS observation,
       [(d)-[:DERIVED_FROM]->(q:Observation)
          WHERE q.workspace = $workspace AND q.deleted_at IS NULL AND q.superseded_at IS NULL
            AND NOT coalesce(q.stale, false) | q.id] AS premise_ids
