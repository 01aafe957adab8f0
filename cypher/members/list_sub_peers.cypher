// The peers below $peer (its sub-peers, theirs, ...) down to $depth MEMBER_OF edges, each
// once, at its shortest distance: found and measured as list_aggregation_peers.cypher does, at
// the cost of the tree's peers and edges, not its paths (all of them, whatever $depth).
// Bounded by 32 edges, the longest chain a workspace can have.
MATCH (top:Peer {workspace: $workspace, name: $peer})
MATCH (sub:Peer)-[:MEMBER_OF]->{1,32}(top)
WITH DISTINCT top, sub
MATCH p = shortestPath((sub)-[:MEMBER_OF*1..32]->(top))
WITH sub, length(p) AS distance
WHERE distance <= $depth
RETURN sub {.*} AS peer, distance
ORDER BY distance, sub.name
LIMIT $limit
