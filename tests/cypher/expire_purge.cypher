// A purge record's lease run out now (as if its process had died a lease ago).
MATCH (r:Purge {id: $id})
SET r.lease_until = $now
RETURN r.id AS id
