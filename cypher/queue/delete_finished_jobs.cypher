// Up to $batch jobs finished (done) before $before, of one workspace or of all ($workspace
// null): the queue's history past its retention. Dead jobs stay until an operator retries or
// deletes them. Seeks the queue index (status, run_after): a job runs after its run_after, so
// one finished before $before was runnable before it. Returns the keys of their units, which
// the caller deletes once empty.
MATCH (j:Job)
WHERE j.status = 'done' AND j.run_after < $before
  AND coalesce(j.updated_at, j.created_at) < $before
  AND ($workspace IS NULL OR j.workspace = $workspace)
WITH j
LIMIT $batch
WITH collect(j) AS gone, collect(DISTINCT j.work_unit) AS units
FOREACH (j IN gone | DETACH DELETE j)
RETURN size(gone) AS deleted, units
