MATCH (p:Peer {workspace: $workspace})-[r:PARTICIPATES_IN]->(s:Session {workspace: $workspace, name: $session})
WHERE $include_past OR r.left_at IS NULL
RETURN p.name AS peer, s.name AS session, r.observe_me AS observe_me,
       r.observe_others AS observe_others, r.joined_at AS joined_at, r.left_at AS left_at,
       last(split(elementId(r), ':')) AS window
ORDER BY r.joined_at, p.name
