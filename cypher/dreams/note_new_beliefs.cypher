// New explicit beliefs from a derivation, per representation: they count toward its next dream
// and move its idle moment to $idle_at (null: no idle trigger). A representation with at least
// $threshold undreamed beliefs (0: never) and no dream waiting or running claims one: its
// OBSERVES edge names the new job in this transaction, so concurrent derivations schedule one
// dream, not one each. The edge is locked (the first SET) before its counters are read.
UNWIND $written AS w
MATCH (:Peer {workspace: $workspace, name: w.observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: w.observed})
SET r.dream_lock = true
REMOVE r.dream_lock
WITH w, r
SET r.since_dream = coalesce(r.since_dream, 0) + w.count,
    r.idle_dream_at = $idle_at
WITH w, r
WHERE $threshold > 0 AND r.since_dream >= $threshold
  AND NOT EXISTS {
    MATCH (j:Job {id: r.dream_job})
    WHERE j.status IN ['pending', 'running']
  }
SET r.dream_job = randomUUID()
RETURN w.observer AS observer, w.observed AS observed, r.dream_job AS job_id,
       r.last_dream_at AS last_dream_at
