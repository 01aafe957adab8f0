// The keys of a workspace's work units (tests only).
MATCH (u:WorkUnit {workspace: $workspace})
RETURN u.key AS key
ORDER BY key
