// Marks a job changed at $updated_at, as a claim or a failed attempt would (tests only).
MATCH (j:Job {id: $id})
SET j.updated_at = $updated_at
RETURN j.id AS id
