CREATE INDEX job_work_unit IF NOT EXISTS
FOR (j:Job) ON (j.work_unit)
