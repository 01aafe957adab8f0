// Purge records whose lease ran out: their purge stopped half-way (oldest first); of one
// workspace, or of all with $workspace null.
MATCH (r:Purge)
WHERE r.lease_until < $now AND ($workspace IS NULL OR r.workspace = $workspace)
RETURN r.id AS id
ORDER BY r.started_at
LIMIT $limit
