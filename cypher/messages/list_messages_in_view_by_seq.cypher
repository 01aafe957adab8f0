// A session's messages in a seq range that the observer could see: those that arrived while
// it was present (a membership window open at the message's arrival). The turns around a
// belief's source message, for the dialectic.
MATCH (m:Message {workspace: $workspace, session: $session})
WHERE m.seq >= $from_seq AND m.seq <= $to_seq AND m.deleted_at IS NULL
  AND EXISTS {
        MATCH (:Peer {workspace: $workspace, name: $observer})
              -[w:PARTICIPATES_IN]->(:Session {workspace: $workspace, name: $session})
        WHERE w.joined_at <= coalesce(m.received_at, m.created_at)
          AND (w.left_at IS NULL OR coalesce(m.received_at, m.created_at) < w.left_at)
      }
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.seq
