// A workspace's data without ids or times, for comparing two workspaces built alike: each
// node (jobs, work units and dream records left out) with what it is and what its outgoing
// edges reach, named by content or name (tests only).
MATCH (n)
WHERE n.workspace = $workspace AND NOT n:Job AND NOT n:WorkUnit AND NOT n:DreamRun
OPTIONAL MATCH (n)-[r]->(m)
WHERE NOT m:Job AND NOT m:Workspace
WITH n, collect([type(r), coalesce(m.content, m.name, m.path)]) AS out
RETURN labels(n)[0] AS label, n.name AS name, n.path AS path, n.peer AS peer,
       n.observer AS observer, n.observed AS observed, n.level AS level, n.content AS content,
       coalesce(n.stale, false) AS stale, n.deleted_at IS NOT NULL AS deleted,
       n.superseded_at IS NOT NULL AS superseded, n.times_derived AS times_derived,
       n.session AS session, n.scope_key IS NOT NULL AS keyed, n.card_observer AS card_observer,
       out
