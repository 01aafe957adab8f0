// Units left 'running' by a worker that died: their jobs are reclaimable once the lease ends.
MATCH (j:Job {status: 'running'})
WHERE $workspace IS NULL OR j.workspace = $workspace
WITH DISTINCT j.work_unit AS key
MATCH (u:WorkUnit {key: key})
WHERE u.lease_until IS NULL OR u.lease_until < $now
RETURN u.key AS key
LIMIT $limit
