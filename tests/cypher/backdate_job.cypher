// Sets a job's enqueue time, as if it had been queued then (tests only).
MATCH (j:Job {id: $id})
SET j.created_at = $created_at
RETURN j.id AS id
