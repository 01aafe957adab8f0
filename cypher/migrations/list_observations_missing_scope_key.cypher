// Scopes whose beliefs predate the scope_key property (a one-off backfill at start-up). A node
// missing its workspace, observer or observed names no scope and cannot be keyed: it is left
// out, so the backfill cannot list it again and again.
MATCH (o:Observation)
WHERE o.scope_key IS NULL
  AND o.workspace IS NOT NULL AND o.observer IS NOT NULL AND o.observed IS NOT NULL
RETURN DISTINCT o.workspace AS workspace, o.observer AS observer, o.observed AS observed
LIMIT $limit
