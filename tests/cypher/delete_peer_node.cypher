// A peer gone at once (as a merge's last step leaves it), for races between a check and a write.
MATCH (p:Peer {workspace: $workspace, name: $name})
DETACH DELETE p
RETURN count(*) AS deleted
