// The aggregation set of a read: $peer itself, then every peer below it down to $depth
// MEMBER_OF edges, each once, nearest first. The peers below are found by a walk that visits
// each peer once (a pruning expand), then each one's distance by a shortest path between the
// two (a bidirectional breadth-first search): both cost the tree's peers and edges, not its
// paths. A shortest-path search from the top to every peer at once tracked paths instead,
// and took seconds on a layered many-to-many tree of 60 peers. Every peer below is measured
// before those past $depth are dropped (a pattern's bounds cannot be parameters), so a shallow
// read of a deep tree costs the whole tree, which stays small. At most $limit names come
// back; the caller asks for one more than it allows, to tell a full set from a cut one.
MATCH (top:Peer {workspace: $workspace, name: $peer})
OPTIONAL CALL (top) {
  WITH top WHERE $depth > 0
  MATCH (sub:Peer)-[:MEMBER_OF]->{1,32}(top)
  WITH DISTINCT top, sub
  MATCH p = shortestPath((sub)-[:MEMBER_OF*1..32]->(top))
  WITH sub, length(p) AS distance
  WHERE distance <= $depth
  ORDER BY distance, sub.name
  LIMIT $limit
  RETURN collect(sub.name) AS below
}
RETURN [top.name] + coalesce(below, []) AS peers
