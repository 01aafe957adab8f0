// Case-insensitive substring search over what an observer could see of one or several peers
// ($scopes: {observer, observed} pairs, a peer and its sub-peers): each observed peer's own
// messages that arrived while its observer was present in their session (a membership window
// open at the message's arrival), or all of them when a peer asks about itself. Session
// filters: only $session_ids, none of $exclude_session_ids. Newest first, so a changed value
// shows its latest form.
UNWIND $scopes AS s
MATCH (m:Message {workspace: $workspace, peer: s.observed})
WHERE m.deleted_at IS NULL
  AND ($session_ids IS NULL OR m.session IN $session_ids)
  AND ($exclude_session_ids IS NULL OR NOT m.session IN $exclude_session_ids)
  AND toLower(m.content) CONTAINS toLower($text)
  AND (s.observer = s.observed OR EXISTS {
        MATCH (:Peer {workspace: $workspace, name: s.observer})
              -[w:PARTICIPATES_IN]->(:Session {workspace: $workspace, name: m.session})
        WHERE w.joined_at <= coalesce(m.received_at, m.created_at)
          AND (w.left_at IS NULL OR coalesce(m.received_at, m.created_at) < w.left_at)
      })
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.created_at DESC, m.seq DESC
LIMIT $limit
