// One page of the peers above $peer (its parents, theirs, ...) up to $depth MEMBER_OF edges,
// each once, at its shortest distance, ordered by distance then name: found and measured as
// list_aggregation_peers.cypher does, at the cost of the tree's peers and edges, not its paths
// (all of them, whatever $depth). Bounded by 32 edges, the longest chain a workspace can have.
// Paged as list_sub_peers.cypher is ($after, $after_distance, $skip, $limit; found,
// after_found, total).
OPTIONAL MATCH (bottom:Peer {workspace: $workspace, name: $peer})
WITH bottom, COLLECT {
  MATCH (bottom)-[:MEMBER_OF]->{1,32}(parent:Peer)
  WITH DISTINCT bottom, parent
  MATCH p = shortestPath((bottom)-[:MEMBER_OF*1..32]->(parent))
  WITH parent, length(p) AS distance
  WHERE distance <= $depth
  RETURN {peer: parent {.*}, distance: distance} AS related
  ORDER BY distance, parent.name
} AS listed
WITH bottom, listed,
     CASE WHEN $after IS NULL THEN -1
          WHEN $after_distance IS NOT NULL
            THEN size([r IN listed WHERE r.distance < $after_distance
                         OR (r.distance = $after_distance AND r.peer.name <= $after)]) - 1
          ELSE coalesce(head([i IN range(0, size(listed) - 1)
                              WHERE listed[i].peer.name = $after]), -2) END AS last
// From the end ($from_end, with no $after), the page is the $limit items before the last $skip:
// a reversed list's page cut in the same read that counts it.
WITH bottom, listed, last, size(listed) AS total
WITH bottom, listed, last, total,
     CASE WHEN $from_end THEN total - $skip ELSE last + 1 + $skip + $limit END AS stop
WITH bottom, listed, last, total, stop,
     CASE WHEN $from_end THEN stop - $limit ELSE last + 1 + $skip END AS begin
RETURN bottom IS NOT NULL AS found, last <> -2 AS after_found, total,
       listed[CASE WHEN begin < 0 THEN 0 ELSE begin END..
              CASE WHEN stop < 0 THEN 0 ELSE stop END] AS page
