// The (observer, observed) representations holding the most beliefs, with their workspace: the
// scopes whose belief searches are slowest on a cold server, so the start-up warm-up searches
// them (reasoners/search/warmup.py). Sizes come from the OBSERVES edges' counts of the beliefs
// written into them; no belief is read.
MATCH (a:Peer)-[r:OBSERVES]->(b:Peer)
WHERE r.observations > 0
WITH a, b, r.observations AS beliefs
ORDER BY beliefs DESC
LIMIT $limit
RETURN a.workspace AS workspace, a.name AS observer, b.name AS observed, beliefs
