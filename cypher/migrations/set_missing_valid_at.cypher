// One batch of beliefs without valid_at getting their creation time (recency reads use it).
MATCH (o:Observation)
WHERE o.valid_at IS NULL
WITH o LIMIT $batch
SET o.valid_at = o.created_at
RETURN count(o) AS updated
