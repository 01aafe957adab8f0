// The peers present in a session, in the order they joined, with their records: one read for
// a list that named them and then read each.
MATCH (p:Peer {workspace: $workspace})
      -[r:PARTICIPATES_IN]->(s:Session {workspace: $workspace, name: $session})
WHERE r.left_at IS NULL
RETURN p {.*} AS peer
ORDER BY r.joined_at, p.name
LIMIT $limit
