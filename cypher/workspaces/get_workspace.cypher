MATCH (w:Workspace {name: $workspace})
RETURN w {.*} AS workspace
