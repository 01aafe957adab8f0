// The latest live message of a session numbered at most $seq: the last one a summary covers
// that is still there (the one it names may have been purged since).
MATCH (m:Message {workspace: $workspace, session: $session})
WHERE m.seq <= $seq AND m.deleted_at IS NULL
RETURN m {.id, .workspace, .session, .peer, .content, .context, .metadata, .created_at, .seq,
          .token_count, .client_id, .received_at, .edited_at} AS message
ORDER BY m.seq DESC
LIMIT 1
