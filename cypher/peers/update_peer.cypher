MATCH (p:Peer {workspace: $workspace, name: $name})
SET p.metadata = coalesce($metadata, p.metadata),
    p.meta_kv = coalesce($meta_kv, p.meta_kv),
    p.configuration = coalesce($configuration, p.configuration),
    p.extraction_context = CASE WHEN $set_extraction_context THEN $extraction_context
                                ELSE p.extraction_context END
// A node another transaction deleted while this one waited for its lock reads as empty:
// no row, so the caller answers NOT_FOUND.
WITH p WHERE p.name IS NOT NULL
RETURN p {.*} AS peer
