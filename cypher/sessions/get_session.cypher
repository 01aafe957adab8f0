MATCH (s:Session {workspace: $workspace, name: $name})
RETURN s {.*} AS session
