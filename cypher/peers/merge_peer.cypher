MATCH (w:Workspace {name: $props.workspace})
MERGE (p:Peer {workspace: $props.workspace, name: $props.name})
ON CREATE SET p += $props
RETURN p {.*} AS peer
