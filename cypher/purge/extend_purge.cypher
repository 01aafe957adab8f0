// A running purge renews its record's lease, while it still holds it: a run whose lease ran
// out (another took the record up) must not take it back.
MATCH (r:Purge {id: $id})
WHERE r.owner = $owner
SET r.lease_until = $lease_until
RETURN count(r) AS extended
