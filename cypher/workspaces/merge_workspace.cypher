MERGE (w:Workspace {name: $props.name})
ON CREATE SET w += $props
RETURN w {.*} AS workspace
