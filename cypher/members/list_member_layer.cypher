// One layer of a walk over MEMBER_OF: the peers one edge above the peers named in $names
// ($up), or one edge below them, each once. graph/repo/members.py walks layer by layer to find
// the longest chain through a peer: a path-by-path walk costs the number of paths, which grows
// exponentially with the width of a many-to-many tree, where layers cost its edges.
UNWIND $names AS name
MATCH (n:Peer {workspace: $workspace, name: name})
CALL (n) {
  WITH n WHERE $up
  MATCH (n)-[:MEMBER_OF]->(m:Peer)
  RETURN m
  UNION
  WITH n WHERE NOT $up
  MATCH (m:Peer)-[:MEMBER_OF]->(n)
  RETURN m
}
RETURN DISTINCT m.name AS name
