// One active session of the workspace, if it has any.
MATCH (s:Session {workspace: $workspace})
WHERE s.active
RETURN s.name AS name
LIMIT 1
