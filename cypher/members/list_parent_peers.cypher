// The peers above $peer (its parents, theirs, ...) up to $depth MEMBER_OF edges, each once,
// at its shortest distance (one shortest path per peer, found breadth-first, so a
// many-to-many tree costs its peers, not its paths). Bounded by 32 edges, the longest chain
// a workspace can have.
MATCH (bottom:Peer {workspace: $workspace, name: $peer})
MATCH p = ANY SHORTEST (bottom)-[:MEMBER_OF]->{1,32}(parent:Peer)
WHERE length(p) <= $depth
WITH parent, min(length(p)) AS distance
RETURN parent {.*} AS peer, distance
ORDER BY distance, parent.name
LIMIT $limit
