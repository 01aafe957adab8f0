// Through the (unit, status, seq) index: by the unit alone, every done job it kept was read.
// Every job has a seq.
MATCH (j:Job {work_unit: $key})
USING INDEX j:Job(work_unit, status, seq)
WHERE j.status IN ['pending', 'running'] AND j.seq IS NOT NULL
RETURN j {.*} AS job
ORDER BY j.seq
LIMIT $limit
