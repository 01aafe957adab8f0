// (child)-[:MEMBER_OF]->(parent). The caller holds the workspace's lock
// (lock_workspace.cypher) and has checked, under it, that both peers exist, that the edge is new
// and that it makes neither a cycle nor a chain over the depth limit (graph/repo/members.py).
MATCH (parent:Peer {workspace: $workspace, name: $parent})
MATCH (child:Peer {workspace: $workspace, name: $child})
CREATE (child)-[r:MEMBER_OF {created_at: $now}]->(parent)
RETURN count(r) AS created
