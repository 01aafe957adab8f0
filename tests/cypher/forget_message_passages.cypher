// Makes a workspace's messages look stored by a beliefgraph from before passages.
MATCH (m:Message {workspace: $workspace})
REMOVE m.passage_embeddings
RETURN count(m) AS forgotten
