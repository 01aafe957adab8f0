// A row when $peer is below $ancestor (one MEMBER_OF edge up or more, 32 at most: the longest
// chain a workspace can have), none otherwise. A shortest-path search from both ends visits
// each peer once, however many paths a many-to-many tree has.
MATCH (bottom:Peer {workspace: $workspace, name: $peer}),
      (top:Peer {workspace: $workspace, name: $ancestor})
MATCH p = shortestPath((bottom)-[:MEMBER_OF*1..32]->(top))
RETURN length(p) AS distance
LIMIT 1
