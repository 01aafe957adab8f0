// Purge records whose lease ran out: their purge stopped half-way (oldest first), past the wait
// after a failed try; of one workspace, or of all with $workspace null.
MATCH (r:Purge)
WHERE r.lease_until < $now AND (r.retry_after IS NULL OR r.retry_after < $now)
  AND ($workspace IS NULL OR r.workspace = $workspace)
RETURN r.id AS id
ORDER BY r.started_at
LIMIT $limit
