// One numbered page of messages, newest first: list_messages_by_number.cypher, reversed.
MATCH (m:Message {workspace: $workspace})
WHERE m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.created_at DESC, m.seq DESC, m.id DESC
SKIP $skip
LIMIT $limit
