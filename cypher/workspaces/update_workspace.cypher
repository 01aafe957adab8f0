MATCH (w:Workspace {name: $workspace})
SET w.metadata = coalesce($metadata, w.metadata),
    w.meta_kv = coalesce($meta_kv, w.meta_kv),
    w.configuration = coalesce($configuration, w.configuration)
RETURN w {.*} AS workspace
