// Case-insensitive substring search over what the observer could see of the observed: the
// observed's own messages that arrived while the observer was present in their session (a
// membership window open at the message's arrival), or all of them when a peer asks about
// itself. Newest first, so a changed value shows its latest form.
MATCH (m:Message {workspace: $workspace, peer: $observed})
WHERE m.deleted_at IS NULL
  AND ($session IS NULL OR m.session = $session)
  AND toLower(m.content) CONTAINS toLower($text)
  AND ($observer = $observed OR EXISTS {
        MATCH (:Peer {workspace: $workspace, name: $observer})
              -[w:PARTICIPATES_IN]->(:Session {workspace: $workspace, name: m.session})
        WHERE w.joined_at <= coalesce(m.received_at, m.created_at)
          AND (w.left_at IS NULL OR coalesce(m.received_at, m.created_at) < w.left_at)
      })
RETURN m {.*, embedding: null} AS message
ORDER BY m.created_at DESC, m.seq DESC
LIMIT $limit
