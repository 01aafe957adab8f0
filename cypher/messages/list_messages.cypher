// Keyset pagination on (created_at, id); every filter is optional (null = no filter).
MATCH (m:Message {workspace: $workspace})
WHERE m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
  AND ($after_time IS NULL OR m.created_at > $after_time
       OR (m.created_at = $after_time AND m.id > $after_id))
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.created_at, m.id
LIMIT $limit
