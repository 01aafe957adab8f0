// The aggregation set of a read: $peer itself, then every peer below it down to $depth
// MEMBER_OF edges, each once (one shortest path per peer, found breadth-first, so a
// many-to-many tree costs its peers, not its paths). At most $limit names come back; the
// caller asks for one more than it allows, to tell a full set from a cut one.
MATCH (top:Peer {workspace: $workspace, name: $peer})
OPTIONAL CALL (top) {
  WITH top WHERE $depth > 0
  MATCH p = ANY SHORTEST (sub:Peer)-[:MEMBER_OF]->{1,32}(top)
  WHERE length(p) <= $depth
  WITH sub, min(length(p)) AS distance
  ORDER BY distance, sub.name
  LIMIT $limit
  RETURN collect(sub.name) AS below
}
RETURN [top.name] + coalesce(below, []) AS peers
