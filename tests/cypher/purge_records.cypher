// A workspace's purge records, oldest first.
MATCH (r:Purge {workspace: $workspace})
RETURN r.id AS id, r.attempts AS attempts
ORDER BY r.started_at
