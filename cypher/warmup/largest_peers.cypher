// The peers that sent the most messages, with their workspace: the scopes whose searches are
// slowest on a cold server, so the start-up warm-up searches them (reasoners/search/warmup.py).
// Degrees come from Neo4j's relationship counts; no message is read.
MATCH (p:Peer)
WITH p, COUNT { (p)<-[:SENT_BY]-() } AS sent
WHERE sent > 0
ORDER BY sent DESC
LIMIT $limit
RETURN p.workspace AS workspace, p.name AS peer, sent
