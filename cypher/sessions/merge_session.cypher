// `created`: this MERGE made the node (it holds this call's created_at, not an earlier one's).
MATCH (w:Workspace {name: $props.workspace})
MERGE (s:Session {workspace: $props.workspace, name: $props.name})
ON CREATE SET s += $props
RETURN s {.*} AS session, s.created_at = $props.created_at AS created
