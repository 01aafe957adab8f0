// Opens a membership window for each peer not currently in the session, and updates the
// observation settings given (not null) of those already in it; a new window's settings not
// given are true. A past window (left_at set) is kept as history.
MATCH (s:Session {workspace: $workspace, name: $session})
UNWIND $members AS member
MATCH (p:Peer {workspace: $workspace, name: member.peer})
OPTIONAL MATCH (p)-[open:PARTICIPATES_IN]->(s) WHERE open.left_at IS NULL
FOREACH (_ IN CASE WHEN open IS NULL THEN [1] ELSE [] END |
  CREATE (p)-[:PARTICIPATES_IN {observe_me: coalesce(member.observe_me, true),
                                observe_others: coalesce(member.observe_others, true),
                                joined_at: $now}]->(s))
FOREACH (_ IN CASE WHEN open IS NULL THEN [] ELSE [1] END |
  SET open.observe_me = coalesce(member.observe_me, open.observe_me),
      open.observe_others = coalesce(member.observe_others, open.observe_others))
RETURN count(*) AS members
