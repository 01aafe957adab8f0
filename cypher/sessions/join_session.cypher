// Opens a membership window for each peer not currently in the session, and updates the
// observation settings of those already in it. A past window (left_at set) is kept as history.
MATCH (s:Session {workspace: $workspace, name: $session})
UNWIND $members AS member
MATCH (p:Peer {workspace: $workspace, name: member.peer})
OPTIONAL MATCH (p)-[open:PARTICIPATES_IN]->(s) WHERE open.left_at IS NULL
FOREACH (_ IN CASE WHEN open IS NULL THEN [1] ELSE [] END |
  CREATE (p)-[:PARTICIPATES_IN {observe_me: member.observe_me,
                                observe_others: member.observe_others,
                                joined_at: $now}]->(s))
FOREACH (_ IN CASE WHEN open IS NULL THEN [] ELSE [1] END |
  SET open.observe_me = member.observe_me, open.observe_others = member.observe_others)
RETURN count(*) AS members
