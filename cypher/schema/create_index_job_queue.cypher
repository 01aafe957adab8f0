CREATE INDEX job_queue IF NOT EXISTS
FOR (j:Job) ON (j.status, j.run_after)
