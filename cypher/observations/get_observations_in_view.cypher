// Observations of one or several representations (scope keys) by id, with their premise ids,
// source spans (at most $max_sources, with their count) and knowledge updates (what each
// replaced, what replaced it). Ids outside them (another observer's view, a session filtered
// out) return nothing, so a tool given such an id cannot tell it from one that does not exist.
// A belief is in its own session and in its live source messages' (list_observations.cypher).
// With $as_of, as they stood then: beliefs written later are absent, one superseded since is
// current, and only the knowledge updates made by then are shown.
MATCH (o:Observation)
WHERE o.id IN $ids AND o.workspace = $workspace
  AND o.scope_key IN $keys
  AND o.deleted_at IS NULL
  AND CASE WHEN $session_ids IS NULL OR o.session IN $session_ids THEN true
           ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                         WHERE m.deleted_at IS NULL
                           AND m.session IN $session_ids
                           AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true) } END
  AND CASE WHEN $exclude_session_ids IS NULL OR o.session IS NULL
                OR NOT o.session IN $exclude_session_ids THEN true
           ELSE EXISTS { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                         WHERE m.deleted_at IS NULL
                           AND NOT m.session IN $exclude_session_ids
                           AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true) }
      END
  AND (NOT $exclude_derived OR o.session IS NOT NULL)
  AND ($as_of IS NULL OR o.created_at <= $as_of)
WITH o, ($session_ids IS NULL OR o.session IN $session_ids)
          AND ($exclude_session_ids IS NULL OR o.session IS NULL
               OR NOT o.session IN $exclude_session_ids) AS own_session_shown,
     COLLECT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
               WHERE m.deleted_at IS NULL AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
               RETURN m.created_at ORDER BY m.created_at DESC LIMIT 1 }[0] AS restated
// When it was last stated: its first message, or a live one that repeated it since.
WITH o, own_session_shown,
     CASE WHEN restated > o.valid_at THEN restated ELSE o.valid_at END AS o_stated,
     // Its live sources in the sessions read: the first (which dates it) and the latest
     // $max_sources - 1 are returned (a fact said in 300 messages put 300 quotes in a
     // prompt), with how many there are. With $as_of, those received by then.
     COLLECT {
       MATCH (o)-[d:DERIVED_FROM]->(m:Message)
       WHERE m.workspace = $workspace AND m.deleted_at IS NULL
         AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
         AND ($session_ids IS NULL OR m.session IN $session_ids)
         AND ($exclude_session_ids IS NULL OR NOT m.session IN $exclude_session_ids)
       WITH d, m ORDER BY m.created_at, m.seq, m.id
       RETURN {message: m {.id, .workspace, .session, .peer, .content, .context, .metadata,
                           .created_at, .seq, .token_count, .client_id, .received_at,
                           .edited_at},
               span: d.span}
     } AS linked
// Its sources are the messages of the sessions the filters keep; its session, when its own is
// filtered out, the earliest of theirs (the reader is told those sessions are left out).
RETURN o {.*, embedding: null,
          // As it stood at $as_of: a version superseded later was current then.
          superseded_at: CASE WHEN o.superseded_at > $as_of THEN null ELSE o.superseded_at END,
          // How many messages stated it then (an explicit belief's count is its messages').
          times_derived: CASE WHEN $as_of IS NULL OR o.level <> 'explicit' THEN o.times_derived
                              ELSE COUNT { MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                           WHERE m.deleted_at IS NULL
                                             AND coalesce(m.received_at, m.created_at)
                                                 <= $as_of } END,
          session: CASE WHEN own_session_shown THEN o.session
                        ELSE coalesce(COLLECT {
                          MATCH (o)-[:DERIVED_FROM]->(m:Message)
                          WHERE m.deleted_at IS NULL AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                            AND ($session_ids IS NULL OR m.session IN $session_ids)
                            AND ($exclude_session_ids IS NULL
                                 OR NOT m.session IN $exclude_session_ids)
                          RETURN m.session ORDER BY m.created_at, m.id
                        }[0], o.session) END} AS observation,
       [(o)-[:DERIVED_FROM]->(p:Observation)
          WHERE p.workspace = $workspace AND p.deleted_at IS NULL | p.id] AS premise_ids,
       CASE WHEN size(linked) <= $max_sources THEN linked
            ELSE linked[..1] + linked[(size(linked) - $max_sources + 1)..] END AS sources,
       size(linked) AS source_count,
       // What it replaced, when the filters keep that version too (its words could quote a
       // session left out), with when this one was stated after that one last was (`until`).
       // Of the views read only (a split can leave an edge between two), and not stale: a
       // version whose message was deleted quotes it until a dream judges it.
       COLLECT {
         MATCH (o)-[s:SUPERSEDES]->(old:Observation)
          WHERE old.workspace = $workspace AND old.deleted_at IS NULL
            AND old.scope_key IN $keys AND NOT coalesce(old.stale, false)
            AND ($as_of IS NULL OR s.at <= $as_of)
            AND (NOT $exclude_derived OR old.session IS NOT NULL)
            AND CASE WHEN $session_ids IS NULL OR old.session IN $session_ids THEN true
                     ELSE EXISTS { MATCH (old)-[:DERIVED_FROM]->(m:Message)
                                   WHERE m.deleted_at IS NULL AND m.session IN $session_ids
                                     AND coalesce(coalesce(m.received_at, m.created_at)
                                                  <= $as_of, true) } END
            AND CASE WHEN $exclude_session_ids IS NULL OR old.session IS NULL
                          OR NOT old.session IN $exclude_session_ids THEN true
                     ELSE EXISTS { MATCH (old)-[:DERIVED_FROM]->(m:Message)
                                   WHERE m.deleted_at IS NULL
                                     AND NOT m.session IN $exclude_session_ids
                                     AND coalesce(coalesce(m.received_at, m.created_at)
                                                  <= $as_of, true) } END
         WITH old, COLLECT { MATCH (old)-[:DERIVED_FROM]->(m:Message)
                             WHERE m.deleted_at IS NULL AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                             RETURN m.created_at ORDER BY m.created_at DESC LIMIT 1 }[0] AS again
         WITH old, CASE WHEN again > old.valid_at THEN again ELSE old.valid_at END AS old_stated
         RETURN old {.id, .content, .superseded_at,
                     until: CASE WHEN o.valid_at >= old_stated THEN o.valid_at
                                 ELSE coalesce(COLLECT {
                                        MATCH (o)-[:DERIVED_FROM]->(m:Message)
                                        WHERE m.deleted_at IS NULL
                                          AND m.created_at >= old_stated AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                                        RETURN m.created_at ORDER BY m.created_at LIMIT 1 }[0],
                                      old.superseded_at) END}
       } AS replaces,
       // When each replacement was stated after this one last was (a belief first stated
       // before, and repeated since, replaced it when it was repeated; null: not known).
       [(new:Observation)-[s:SUPERSEDES]->(o)
          WHERE new.workspace = $workspace AND new.deleted_at IS NULL
            AND new.scope_key IN $keys AND ($as_of IS NULL OR s.at <= $as_of)
          | new {.id, valid_at: CASE WHEN new.valid_at >= o_stated THEN new.valid_at
                                     ELSE COLLECT {
                                       MATCH (new)-[:DERIVED_FROM]->(m:Message)
                                       WHERE m.deleted_at IS NULL AND m.created_at >= o_stated
                                         AND coalesce(coalesce(m.received_at, m.created_at) <= $as_of, true)
                                       RETURN m.created_at ORDER BY m.created_at LIMIT 1 }[0]
                                     END}] AS replaced_by
