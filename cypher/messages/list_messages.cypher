// Keyset pagination on (created_at, seq, id): the messages of a batch share their time, and
// their place in the session puts them in the order they were said. Every filter is optional
// (null = no filter). Read in time order through the (workspace, created_at) index from
// $lower (the later of `since` and the cursor's time), stopping once the page is full: each
// page read and sorted every message of the workspace. (Ordering by the workspace first lets
// the planner take the index's order.) One session's: list_session_messages.cypher.
MATCH (m:Message)
USING INDEX m:Message(workspace, created_at)
WHERE m.workspace = $workspace AND m.created_at >= $lower
  AND m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND ($peer IS NULL OR m.peer = $peer)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND all(kv IN $meta_kv WHERE kv IN m.meta_kv)
  AND ($after_time IS NULL OR m.created_at > $after_time
       OR (m.created_at = $after_time
           AND (m.seq > $after_seq OR (m.seq = $after_seq AND m.id > $after_id))))
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.workspace, m.created_at, m.seq, m.id
LIMIT $limit
