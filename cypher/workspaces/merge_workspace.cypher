// `created`: this MERGE made the node (it holds this call's created_at, not an earlier one's).
MERGE (w:Workspace {name: $props.name})
ON CREATE SET w += $props
RETURN w {.*} AS workspace, w.created_at = $props.created_at AS created
