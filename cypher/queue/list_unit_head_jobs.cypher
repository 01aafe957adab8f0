MATCH (j:Job {work_unit: $key})
WHERE j.status IN ['pending', 'running']
RETURN j {.*} AS job
ORDER BY j.seq
LIMIT $limit
