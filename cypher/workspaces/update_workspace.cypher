MATCH (w:Workspace {name: $workspace})
SET w.metadata = coalesce($metadata, w.metadata),
    w.meta_kv = coalesce($meta_kv, w.meta_kv),
    w.configuration = coalesce($configuration, w.configuration)
// A node another transaction deleted while this one waited for its lock reads as empty:
// no row, so the caller answers NOT_FOUND.
WITH w WHERE w.name IS NOT NULL
RETURN w {.*} AS workspace
