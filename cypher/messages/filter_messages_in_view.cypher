// Which of $ids an observer could see, with the same visibility and session filters as
// grep_messages_in_view ($scopes: {observer, observed} pairs): a message of an observed peer
// that arrived while that peer's observer was present in its session, or any of its messages
// when a peer asks about itself. Used after a ranked search, so order does not matter here.
UNWIND $ids AS id
MATCH (m:Message {id: id})
WHERE m.workspace = $workspace
  AND m.deleted_at IS NULL
  AND ($session_ids IS NULL OR m.session IN $session_ids)
  AND ($exclude_session_ids IS NULL OR NOT m.session IN $exclude_session_ids)
UNWIND [s IN $scopes WHERE s.observed = m.peer] AS s
WITH m, s
WHERE s.observer = s.observed OR EXISTS {
        MATCH (:Peer {workspace: $workspace, name: s.observer})
              -[w:PARTICIPATES_IN]->(:Session {workspace: $workspace, name: m.session})
        WHERE w.joined_at <= coalesce(m.received_at, m.created_at)
          AND (w.left_at IS NULL OR coalesce(m.received_at, m.created_at) < w.left_at)
      }
RETURN DISTINCT m.id AS id
