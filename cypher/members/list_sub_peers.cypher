// The peers below $peer (its sub-peers, theirs, ...) down to $depth MEMBER_OF edges, each
// once, at its shortest distance (one shortest path per peer, found breadth-first, so a
// many-to-many tree costs its peers, not its paths). Bounded by 32 edges, the longest chain
// a workspace can have.
MATCH (top:Peer {workspace: $workspace, name: $peer})
MATCH p = ANY SHORTEST (sub:Peer)-[:MEMBER_OF]->{1,32}(top)
WHERE length(p) <= $depth
WITH sub, min(length(p)) AS distance
RETURN sub {.*} AS peer, distance
ORDER BY distance, sub.name
LIMIT $limit
