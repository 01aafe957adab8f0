// list_messages.cypher for one session: through the (workspace, session, created_at) index.
MATCH (m:Message)
USING INDEX m:Message(workspace, session, created_at)
WHERE m.workspace = $workspace AND m.session = $session AND m.created_at >= $lower
  AND m.deleted_at IS NULL
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
  AND ($after_time IS NULL OR m.created_at > $after_time
       OR (m.created_at = $after_time
           AND (m.seq > $after_seq OR (m.seq = $after_seq AND m.id > $after_id))))
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.workspace, m.session, m.created_at, m.seq, m.id
LIMIT $limit
