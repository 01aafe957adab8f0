MATCH (m:Message {workspace: $workspace})
WHERE m.client_id IN $client_ids
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
