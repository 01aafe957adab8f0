// Deletes one batch of the workspace's nodes, label by label so that each lookup uses an
// index (graph/schema.py); the caller repeats until a batch comes back short.
CALL () {
  MATCH (n:Message {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:Observation {workspace: $workspace}) RETURN n LIMIT $batch
  // Every job has a status: the (workspace, status) index serves the lookup.
  UNION MATCH (n:Job {workspace: $workspace}) WHERE n.status IS NOT NULL RETURN n LIMIT $batch
  UNION MATCH (n:WorkUnit {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:Summary {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:FileChunk {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:File {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:DreamRun {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:Dream {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:Session {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:Peer {workspace: $workspace}) RETURN n LIMIT $batch
  UNION MATCH (n:Purge {workspace: $workspace}) RETURN n LIMIT $batch
}
WITH n LIMIT $batch
DETACH DELETE n
RETURN count(*) AS deleted
