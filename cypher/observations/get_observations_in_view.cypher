// Observations of one (observer, observed) scope by id, with their premise ids and source
// spans. Ids outside the scope (another observer's view, another session) return nothing, so
// a tool given such an id cannot tell it from one that does not exist.
MATCH (o:Observation)
WHERE o.id IN $ids AND o.workspace = $workspace
  AND o.observer = $observer AND o.observed = $observed
  AND o.deleted_at IS NULL
  AND ($session IS NULL OR o.session = $session)
RETURN o {.*, embedding: null} AS observation,
       [(o)-[:DERIVED_FROM]->(p:Observation)
          WHERE p.workspace = $workspace AND p.deleted_at IS NULL | p.id] AS premise_ids,
       [(o)-[d:DERIVED_FROM]->(m:Message)
          WHERE m.workspace = $workspace AND m.deleted_at IS NULL
          | {message: m {.*, embedding: null}, span: d.span}] AS sources
