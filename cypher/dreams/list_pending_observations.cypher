// The beliefs of a representation that no dream has read yet, oldest first (those one
// derivation wrote, by when they were stated, then by their first message's place in its
// session: a batch's messages share their time), through the
// (scope_key, dream_pending) index: a dream's reading grows with them, not with the whole
// representation. Embeddings only when asked, and only of beliefs whose neighbours the deriver
// did not record (the zero-key dreamer searches for those).
MATCH (o:Observation)
USING INDEX o:Observation(scope_key, dream_pending)
WHERE o.scope_key = $scope AND o.dream_pending = true AND o.workspace = $workspace
WITH o
ORDER BY o.created_at, o.valid_at,
         COLLECT { MATCH (o)-[:DERIVED_FROM]->(m:Message) RETURN m.seq ORDER BY m.seq LIMIT 1 }[0],
         o.id
LIMIT $limit
RETURN o {.id, .content, .level, .valid_at, .created_at, .session, .stale, .deleted_at,
          .superseded_at, .near_ids, .near_similarities,
          embedding: CASE WHEN $with_embeddings AND o.near_ids IS NULL THEN o.embedding END,
          // When a live message last stated it (a repeat merged into it may be later).
          stated_last: COLLECT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                 WHERE m.deleted_at IS NULL
                                 RETURN m.created_at ORDER BY m.created_at DESC LIMIT 1 }[0]}
       AS observation
