MATCH (u:WorkUnit {key: $key})
WHERE u.lease_owner = $owner
SET u.lease_until = $lease_until
RETURN u.key AS key
