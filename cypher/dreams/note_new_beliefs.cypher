// After a derivation's write, in its transaction: a representation that now has at least
// $threshold undreamed beliefs (0: never) and no dream waiting or running claims one, its
// OBSERVES edge naming the new job, so concurrent derivations schedule one dream, not one each.
// The write (create_explicit_observations.cypher) counted the beliefs on the edge and so holds
// its lock: the counters read here are final, and the edge is written again only to claim.
UNWIND $written AS w
MATCH (:Peer {workspace: $workspace, name: w.observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: w.observed})
WITH w, r
WHERE $threshold > 0 AND r.since_dream >= $threshold
  AND NOT EXISTS {
    MATCH (j:Job {id: r.dream_job})
    WHERE j.status IN ['pending', 'running']
  }
SET r.dream_job = randomUUID()
RETURN w.observer AS observer, w.observed AS observed, r.dream_job AS job_id,
       r.last_dream_at AS last_dream_at
