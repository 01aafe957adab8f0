// The peers above $peer (its parents, theirs, ...) up to $depth MEMBER_OF edges, each once,
// at its shortest distance: found and measured as list_aggregation_peers.cypher does, at the
// cost of the tree's peers and edges, not its paths (all of them, whatever $depth). Bounded by
// 32 edges, the longest chain a workspace can have.
MATCH (bottom:Peer {workspace: $workspace, name: $peer})
MATCH (bottom)-[:MEMBER_OF]->{1,32}(parent:Peer)
WITH DISTINCT bottom, parent
MATCH p = shortestPath((bottom)-[:MEMBER_OF*1..32]->(parent))
WITH parent, length(p) AS distance
WHERE distance <= $depth
RETURN parent {.*} AS peer, distance
ORDER BY distance, parent.name
LIMIT $limit
