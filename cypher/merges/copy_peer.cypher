// A rename's new peer: a copy of the source's properties (metadata, settings, creation time)
// under the new name. Nothing else is copied: the rename job moves the rest.
MATCH (s:Peer {workspace: $workspace, name: $source})
MERGE (t:Peer {workspace: $workspace, name: $target})
ON CREATE SET t = s {.*, name: $target}
RETURN t.name AS name
