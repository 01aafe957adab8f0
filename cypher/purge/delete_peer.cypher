// Hard-deletes a peer with its memberships, sub-peer links and representation edges.
MATCH (p:Peer {workspace: $workspace, name: $peer})
DETACH DELETE p
RETURN count(*) AS deleted
