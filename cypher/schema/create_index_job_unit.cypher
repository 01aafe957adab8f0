CREATE INDEX job_unit IF NOT EXISTS
FOR (j:Job) ON (j.work_unit, j.seq)
