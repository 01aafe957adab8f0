// A session's configuration written as it is, unchecked (as an earlier version stored it).
MATCH (s:Session {workspace: $workspace, name: $session})
SET s.configuration = $configuration
RETURN s.name AS name
