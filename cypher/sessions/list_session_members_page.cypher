// A page of a session's membership windows in (joined_at, peer, window) order, after the last
// one shown: the window's id breaks ties, as a merge copies a peer's windows with their times.
// The id's last part only: the whole names the database, which a cursor has no need to show.
MATCH (p:Peer {workspace: $workspace})
      -[r:PARTICIPATES_IN]->(s:Session {workspace: $workspace, name: $session})
WITH p, r, s, last(split(elementId(r), ':')) AS window
WHERE ($include_past OR r.left_at IS NULL)
  AND ($after_time IS NULL OR r.joined_at > $after_time
       OR (r.joined_at = $after_time
           AND (p.name > $after_peer OR (p.name = $after_peer AND window > $after_window))))
RETURN p.name AS peer, s.name AS session, r.observe_me AS observe_me,
       r.observe_others AS observe_others, r.joined_at AS joined_at, r.left_at AS left_at,
       window
ORDER BY r.joined_at, p.name, window
LIMIT $limit
