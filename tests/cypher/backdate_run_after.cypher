// Sets when a job may run, as if its retry backoff had passed (tests only).
MATCH (j:Job {id: $id})
SET j.run_after = $run_after
RETURN j.id AS id
