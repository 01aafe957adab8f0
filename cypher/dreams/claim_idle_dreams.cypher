// Representations whose idle moment has passed (no new belief for the idle time) with beliefs
// still undreamed: each claims a dream unless one is waiting or running. The edges found lose
// idle_dream_at, so the next scan skips them; a dream sets it again if beliefs arrive meanwhile.
// The observes_idle_dream index finds them without reading the other representations.
MATCH (a:Peer)-[r:OBSERVES]->(b:Peer)
WHERE r.idle_dream_at <= $now AND ($workspace IS NULL OR a.workspace = $workspace)
WITH a, b, r
LIMIT $limit
SET r.dream_lock = true
REMOVE r.dream_lock, r.idle_dream_at
WITH a, b, r
WHERE coalesce(r.since_dream, 0) > 0
  AND NOT EXISTS {
    MATCH (j:Job {id: r.dream_job})
    WHERE j.status IN ['pending', 'running']
  }
SET r.dream_job = randomUUID()
RETURN a.workspace AS workspace, a.name AS observer, b.name AS observed,
       r.dream_job AS job_id, r.last_dream_at AS last_dream_at
