// Units left 'running' by a worker that died: their jobs are reclaimable once the lease ends.
// Every job has a run_after: the (status, run_after) index serves the lookup (the worker's
// periodic look scanned every job kept, done ones too).
MATCH (j:Job {status: 'running'})
WHERE j.run_after IS NOT NULL AND ($workspace IS NULL OR j.workspace = $workspace)
WITH DISTINCT j.work_unit AS key
MATCH (u:WorkUnit {key: key})
WHERE u.lease_until IS NULL OR u.lease_until < $now
RETURN u.key AS key
LIMIT $limit
