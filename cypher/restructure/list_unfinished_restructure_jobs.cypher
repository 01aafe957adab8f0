// The jobs of a workspace's renames, merges and splits not finished: waiting, running,
// or dead-lettered part way (its peers stay claimed by it until `retryJobs` runs it again to its
// end; released, a new operation would act on what it half moved). Through the
// (unit, status, seq) index, as list_unit_head_jobs.cypher.
MATCH (j:Job {work_unit: $key})
USING INDEX j:Job(work_unit, status, seq)
WHERE j.status IN ['pending', 'running', 'dead'] AND j.seq IS NOT NULL
RETURN j {.*} AS job
ORDER BY j.seq
LIMIT $limit
