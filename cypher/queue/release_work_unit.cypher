MATCH (u:WorkUnit {key: $key})
WHERE u.lease_owner = $owner
SET u.lease_owner = null, u.lease_until = null
RETURN u.key AS key
