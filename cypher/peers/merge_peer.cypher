// `created`: this MERGE made the node (it holds this call's created_at, not an earlier one's).
MATCH (w:Workspace {name: $props.workspace})
MERGE (p:Peer {workspace: $props.workspace, name: $props.name})
ON CREATE SET p += $props
RETURN p {.*} AS peer, p.created_at = $props.created_at AS created
