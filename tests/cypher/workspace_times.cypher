// Every client-sent time of a workspace: instant (epoch millis) and zone, by node id.
MATCH (n)
WHERE (n:Message OR n:Observation) AND n.workspace = $workspace
WITH n, coalesce(n.valid_at, n.created_at) AS t
RETURN n.id AS id, t AS at, CASE WHEN n:Message THEN 'message' ELSE 'belief' END AS kind, t.epochMillis AS millis, t.timezone AS zone
ORDER BY id
