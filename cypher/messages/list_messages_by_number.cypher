// One numbered page of messages, oldest first: by time, then by place in the session (a batch
// shares one time). The filters of list_messages.cypher; only the page's rows come back.
MATCH (m:Message {workspace: $workspace})
WHERE m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.created_at, m.seq, m.id
SKIP $skip
LIMIT $limit
