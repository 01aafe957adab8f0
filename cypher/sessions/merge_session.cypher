MATCH (w:Workspace {name: $props.workspace})
MERGE (s:Session {workspace: $props.workspace, name: $props.name})
ON CREATE SET s += $props
RETURN s {.*} AS session
