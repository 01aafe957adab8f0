// $child becomes a sub-peer of $parent: (child)-[:MEMBER_OF]->(parent). MEMBER_OF is
// many-to-many; what a read aggregates comes from walking it (a peer with two parents is seen
// from both). The workspace node is locked first (the SET), so the MEMBER_OF writes of one
// workspace run one at a time and each checks the graph the previous one left: of two
// opposite adds racing, the later sees the earlier's edge and is refused as a cycle.
// Refused, with nothing written (`problem`): a missing peer (`missing`); the peer itself; a child that
// is already the parent or above it (a cycle); a chain through the new edge longer than
// $max_depth edges. Adding an edge that exists changes nothing (`created` false).
// The walks are bounded by 32 edges (settings.MAX_PEER_DEPTH_CAP): no chain is longer.
MATCH (w:Workspace {name: $workspace})
SET w.member_lock = true
REMOVE w.member_lock
WITH w
OPTIONAL MATCH (parent:Peer {workspace: $workspace, name: $parent})
OPTIONAL MATCH (child:Peer {workspace: $workspace, name: $child})
WITH parent, child,
     parent IS NOT NULL AND child IS NOT NULL
       AND EXISTS { (child)-[:MEMBER_OF]->(parent) } AS existed,
     parent IS NOT NULL AND child IS NOT NULL
       AND EXISTS { (parent)-[:MEMBER_OF*0..32]->(child) } AS cycle,
     reduce(m = 0, n IN COLLECT {
       MATCH p = (parent)-[:MEMBER_OF*1..32]->(:Peer) RETURN length(p) AS n
     } | CASE WHEN n > m THEN n ELSE m END) AS above,
     reduce(m = 0, n IN COLLECT {
       MATCH p = (:Peer)-[:MEMBER_OF*1..32]->(child) RETURN length(p) AS n
     } | CASE WHEN n > m THEN n ELSE m END) AS below
WITH parent, child, existed, cycle, above, below,
     CASE WHEN parent IS NULL THEN $parent WHEN child IS NULL THEN $child END AS missing
WITH parent, child, existed, missing, CASE
  WHEN missing IS NOT NULL THEN 'peer ' + missing + ' does not exist'
  WHEN existed THEN null
  WHEN $parent = $child THEN 'a peer cannot be its own sub-peer'
  WHEN cycle
    THEN $child + ' is already ' + $parent + ' or above it: adding it below would make a cycle'
  WHEN above + 1 + below > $max_depth
    THEN 'the chain of sub-peers through ' + $parent + ' and ' + $child + ' would be '
         + toString(above + 1 + below) + ' long; the limit is ' + toString($max_depth)
         + ' (BELIEFGRAPH_MAX_PEER_DEPTH)'
END AS problem
CALL (parent, child, existed, problem) {
  WITH parent, child WHERE problem IS NULL AND NOT existed
  CREATE (child)-[r:MEMBER_OF {created_at: $now}]->(parent)
  RETURN count(r) AS created
}
RETURN missing, problem, created > 0 AS created
