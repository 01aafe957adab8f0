// Units whose first unfinished job may run now and whose lease is free. A 'running' head
// under an expired lease belongs to a worker that died: it is claimable again. The head that
// has waited longest goes first, and of heads made ready at one moment (a flush) the oldest,
// so work queued first runs first whatever order the store returns the jobs in.
MATCH (j:Job {status: 'pending'})
WHERE j.run_after <= $now AND ($workspace IS NULL OR j.workspace = $workspace)
WITH DISTINCT j.work_unit AS key
MATCH (u:WorkUnit {key: key})
WHERE u.lease_until IS NULL OR u.lease_until < $now
CALL (key) {
  // Through the (unit, status, seq) index, as list_unit_head_jobs.cypher.
  MATCH (h:Job {work_unit: key})
  USING INDEX h:Job(work_unit, status, seq)
  WHERE h.status IN ['pending', 'running'] AND h.seq IS NOT NULL
  RETURN h ORDER BY h.seq LIMIT 1
}
WITH u, h
WHERE h.run_after <= $now OR h.status = 'running'
RETURN u.key AS key
ORDER BY h.run_after, h.created_at
LIMIT $limit
