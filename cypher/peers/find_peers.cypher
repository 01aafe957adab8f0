UNWIND $names AS name
OPTIONAL MATCH (p:Peer {workspace: $workspace, name: name})
RETURN name, p IS NOT NULL AS found
