// Scopes whose beliefs predate the scope_key property (a one-off backfill at start-up).
MATCH (o:Observation)
WHERE o.scope_key IS NULL
RETURN DISTINCT o.workspace AS workspace, o.observer AS observer, o.observed AS observed
LIMIT $limit
