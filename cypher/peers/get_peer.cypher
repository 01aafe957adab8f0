MATCH (p:Peer {workspace: $workspace, name: $name})
RETURN p {.*} AS peer
