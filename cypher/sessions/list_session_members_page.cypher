// A page of a session's membership windows in (joined_at, peer) order, after the last one shown.
MATCH (p:Peer {workspace: $workspace})
      -[r:PARTICIPATES_IN]->(s:Session {workspace: $workspace, name: $session})
WHERE ($include_past OR r.left_at IS NULL)
  AND ($after_time IS NULL OR r.joined_at > $after_time
       OR (r.joined_at = $after_time AND p.name > $after_peer))
RETURN p.name AS peer, s.name AS session, r.observe_me AS observe_me,
       r.observe_others AS observe_others, r.joined_at AS joined_at, r.left_at AS left_at
ORDER BY r.joined_at, p.name
LIMIT $limit
