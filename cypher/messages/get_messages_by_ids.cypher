MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids AND m.deleted_at IS NULL
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at, .derive} AS message
ORDER BY m.seq
