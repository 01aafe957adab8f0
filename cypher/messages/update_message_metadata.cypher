// Replace a message's metadata (its content, sender and place stay: they are evidence).
MATCH (m:Message {workspace: $workspace, id: $id, session: $session})
WHERE m.deleted_at IS NULL
SET m.metadata = $metadata, m.meta_kv = $meta_kv
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
