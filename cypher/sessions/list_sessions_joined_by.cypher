// Those of $sessions (names) that $peer has been a member of: an open or a past membership
// window. A search asked what "you" said on the asker's behalf favours other peers' turns only
// in these.
UNWIND $sessions AS name
MATCH (:Peer {workspace: $workspace, name: $peer})
      -[:PARTICIPATES_IN]->(s:Session {workspace: $workspace, name: name})
RETURN DISTINCT s.name AS session
