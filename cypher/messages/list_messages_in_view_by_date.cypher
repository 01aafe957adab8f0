// The observed's messages in a time range, with the same visibility as grep_messages_in_view
// (arrived while the observer was present); oldest first within the range.
MATCH (m:Message {workspace: $workspace, peer: $observed})
WHERE m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND ($observer = $observed OR EXISTS {
        MATCH (:Peer {workspace: $workspace, name: $observer})
              -[w:PARTICIPATES_IN]->(:Session {workspace: $workspace, name: m.session})
        WHERE w.joined_at <= coalesce(m.received_at, m.created_at)
          AND (w.left_at IS NULL OR coalesce(m.received_at, m.created_at) < w.left_at)
      })
RETURN m {.*, embedding: null} AS message
ORDER BY m.created_at, m.seq
LIMIT $limit
