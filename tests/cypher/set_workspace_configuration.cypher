// A workspace's configuration written as it is, unchecked (as an earlier version stored it).
MATCH (w:Workspace {name: $workspace})
SET w.configuration = $configuration
RETURN w.name AS name
