MATCH (w:Workspace {name: $workspace})
SET w.metadata = coalesce($metadata, w.metadata),
    w.configuration = coalesce($configuration, w.configuration)
RETURN w {.*} AS workspace
