// Takes, in name order, the write locks of the sessions $peer has windows in ($sessions only,
// when given) for the rest of the transaction, as a membership change takes its session's
// (lock_session.cypher): a merge or split moving those windows then reads the target's open
// ones after a join in progress commits. Read before it, a join committed meanwhile left the
// target two open windows in one session.
MATCH (:Peer {workspace: $workspace, name: $peer})-[:PARTICIPATES_IN]->(s:Session)
WHERE $sessions IS NULL OR s.name IN $sessions
WITH DISTINCT s
ORDER BY s.name
SET s.write_lock = true
REMOVE s.write_lock
RETURN count(s) AS locked
