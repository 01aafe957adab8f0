// A user file and its chunks. No row: there was no such file; a managed file is kept
// (`deleted` false, `managed` says by whom).
MATCH (f:File {workspace: $workspace, peer: $peer, path: $path})
WITH f, f.managed_by AS managed
OPTIONAL CALL (f, managed) {
  WITH f WHERE managed IS NULL
  // Its lock before its chunks are read: an update holding it may be adding chunks, which a
  // list read before would leave behind, held by no file.
  SET f.delete_lock = true REMOVE f.delete_lock
  WITH f
  CALL (f) {
    MATCH (f)-[:HAS_CHUNK]->(c:FileChunk)
    DETACH DELETE c
  }
  DETACH DELETE f
  RETURN true AS deleted
}
RETURN managed, deleted IS NOT NULL AS deleted
