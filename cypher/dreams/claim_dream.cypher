// A dream on demand: the representation claims one unless a dream is waiting, in which case
// that one is made runnable now. A dream already running read the beliefs before this call
// (a deletion's stale ones may be newer), so a new one is claimed and queued behind it in the
// representation's unit; the running dream's finish keeps the new claim (finish_dream.cypher:
// a held job not its own). `created` tells the caller to enqueue the job. A waiting dream
// reused for the app's request takes its $payload (the trigger "manual"; null: unchanged), so
// a dream an edit scheduled, which may only reconcile, dreams in full when the app asks.
// The claim is the statement's one write of the edge, and its right-hand side reads the edge's
// own dream_job, which makes Cypher lock the edge before reading it. A lock item of its own
// ahead of the claim (three writes of the edge) deadlocked with derivations waiting on it
// (create_explicit_observations.cypher says how).
MATCH (a:Peer {workspace: $workspace, name: $observer})
MATCH (b:Peer {workspace: $workspace, name: $observed})
MERGE (a)-[r:OBSERVES]->(b)
WITH r, randomUUID() AS fresh
SET r.dream_job = CASE
      WHEN EXISTS {
        MATCH (j:Job {id: r.dream_job})
        WHERE j.status = 'pending'
      }
        THEN r.dream_job
      ELSE fresh
    END
WITH r, r.dream_job = fresh AS created
OPTIONAL MATCH (j:Job {id: r.dream_job})
WHERE NOT created AND j.status = 'pending'
  AND ((j.attempts = 0 AND j.run_after > $now) OR j.payload <> coalesce($payload, j.payload))
SET j.run_after = CASE WHEN j.attempts = 0 AND j.run_after > $now THEN $now ELSE j.run_after END,
    j.payload = coalesce($payload, j.payload)
RETURN r.dream_job AS job_id, created
