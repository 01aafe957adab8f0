// A unit's unfinished jobs, found without reading its finished ones: by (unit, seq) alone, a
// claim walked every done job the unit kept (seven days of them) before its first pending one.
CREATE INDEX job_unit_status IF NOT EXISTS
FOR (j:Job) ON (j.work_unit, j.status, j.seq)
