// The aggregation set at depth ALL: $peer, then every peer below it. Without a depth bound the
// read needs no distances, so the planner walks MEMBER_OF breadth-first and visits each peer
// once (a pruning expand), however many paths a many-to-many tree has; this is about twice as
// fast as the shortest-path search list_aggregation_peers does for a bounded depth. At most
// $limit names below; the caller asks for one more than it allows.
MATCH (top:Peer {workspace: $workspace, name: $peer})
OPTIONAL CALL (top) {
  MATCH (sub:Peer)-[:MEMBER_OF]->{1,32}(top)
  RETURN collect(DISTINCT sub.name)[..$limit] AS below
}
RETURN [top.name] + coalesce(below, []) AS peers
