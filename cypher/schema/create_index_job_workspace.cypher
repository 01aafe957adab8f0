CREATE INDEX job_workspace IF NOT EXISTS
FOR (j:Job) ON (j.workspace, j.status)
