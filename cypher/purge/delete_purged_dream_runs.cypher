// Dream runs whose record quotes purged data: every run of a representation the purged peer
// ($peer) is part of, and runs of the affected representations ($scopes) whose events name a
// purged belief ($observation_ids). Up to $batch runs per run.
MATCH (r:DreamRun {workspace: $workspace})
WHERE r.observer = $peer OR r.observed = $peer
   OR ({observer: r.observer, observed: r.observed} IN $scopes
       AND any(id IN $observation_ids WHERE r.events CONTAINS id))
WITH r
LIMIT $batch
DETACH DELETE r
RETURN count(*) AS deleted
