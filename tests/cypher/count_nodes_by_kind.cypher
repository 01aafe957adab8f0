// How many nodes of each kind a workspace holds: beliefs by level, peer cards apart from other
// files (a full scan: tests only).
MATCH (n)
WHERE n.workspace = $workspace
RETURN CASE
         WHEN n:Observation THEN 'observation:' + n.level
         WHEN n:File AND n.card_observer IS NOT NULL THEN 'card'
         ELSE labels(n)[0]
       END AS kind,
       count(*) AS total
