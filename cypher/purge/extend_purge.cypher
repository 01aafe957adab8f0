// A running purge renews its record's lease as its batches commit.
MATCH (r:Purge {id: $id})
SET r.lease_until = $lease_until
RETURN count(r) AS extended
