MATCH (s:Session {workspace: $workspace, name: $name})
SET s.metadata = coalesce($metadata, s.metadata),
    s.meta_kv = coalesce($meta_kv, s.meta_kv),
    s.configuration = coalesce($configuration, s.configuration),
    s.active = coalesce($active, s.active),
    s.context = CASE WHEN $set_context THEN $context ELSE s.context END
// A node another transaction deleted while this one waited for its lock reads as empty:
// no row, so the caller answers NOT_FOUND.
WITH s WHERE s.name IS NOT NULL
RETURN s {.*} AS session
