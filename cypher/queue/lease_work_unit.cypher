// Run after lock_work_unit in the same transaction: the lease seen here is current.
MATCH (u:WorkUnit {key: $key})
WHERE u.lease_until IS NULL OR u.lease_until < $now
SET u.lease_owner = $owner, u.lease_until = $lease_until
RETURN u.key AS key
