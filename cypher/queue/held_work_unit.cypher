// The unit, if $owner holds its lease (after lock_work_unit in the same transaction).
MATCH (u:WorkUnit {key: $key})
WHERE u.lease_owner = $owner
RETURN u.key AS key
