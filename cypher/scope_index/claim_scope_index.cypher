// Marks the scope as getting an index of its own. From this commit on, every new belief of the
// scope takes the label (create_explicit_observations reads it after locking the same edge), so
// the labelling passes that follow leave none out.
MATCH (a:Peer {workspace: $workspace, name: $observer})
MATCH (b:Peer {workspace: $workspace, name: $observed})
MERGE (a)-[r:OBSERVES]->(b)
SET r.vector_label = $label
RETURN r.vector_index AS index
