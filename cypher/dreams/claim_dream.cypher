// A dream on demand: the representation claims one unless a dream is waiting or running, in
// which case a waiting one is made runnable now. `created` tells the caller to enqueue the job.
MATCH (a:Peer {workspace: $workspace, name: $observer})
MATCH (b:Peer {workspace: $workspace, name: $observed})
MERGE (a)-[r:OBSERVES]->(b)
SET r.dream_lock = true
REMOVE r.dream_lock
WITH r
OPTIONAL MATCH (j:Job {id: r.dream_job})
WHERE j.status IN ['pending', 'running']
SET j.run_after = CASE
  WHEN j.status = 'pending' AND j.attempts = 0 AND j.run_after > $now THEN $now
  ELSE j.run_after
END
SET r.dream_job = CASE WHEN j IS NULL THEN randomUUID() ELSE r.dream_job END
RETURN r.dream_job AS job_id, j IS NULL AS created
