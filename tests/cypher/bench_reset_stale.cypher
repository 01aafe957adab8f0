// Benchmark only: makes beliefs current again between measured propagations.
MATCH (o:Observation {workspace: $workspace})
WHERE o.id IN $ids
SET o.stale = false, o.stale_reason = null, o.stale_at = null, o.reconcile_pending = null
RETURN count(o) AS reset
