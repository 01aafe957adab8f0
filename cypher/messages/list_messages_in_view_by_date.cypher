// The observed peers' messages in a time range, with the same visibility and session filters
// as grep_messages_in_view ($scopes: {observer, observed} pairs); oldest first.
UNWIND $scopes AS s
MATCH (m:Message {workspace: $workspace, peer: s.observed})
WHERE m.deleted_at IS NULL
  AND ($session_ids IS NULL OR m.session IN $session_ids)
  AND ($exclude_session_ids IS NULL OR NOT m.session IN $exclude_session_ids)
  AND ($since IS NULL OR m.created_at >= $since)
  AND ($until IS NULL OR m.created_at < $until)
  AND (s.observer = s.observed OR EXISTS {
        MATCH (:Peer {workspace: $workspace, name: s.observer})
              -[w:PARTICIPATES_IN]->(:Session {workspace: $workspace, name: m.session})
        WHERE w.joined_at <= coalesce(m.received_at, m.created_at)
          AND (w.left_at IS NULL OR coalesce(m.received_at, m.created_at) < w.left_at)
      })
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.created_at, m.seq
LIMIT $limit
