// A user file's new content and chunks (the old chunks go, in the same write) and/or metadata.
// A file that some part of the service manages (managed_by set) is left as it is: `managed`
// says by whom, and `written` is false.
MATCH (f:File {workspace: $workspace, peer: $peer, path: $path})
WITH f, f.managed_by AS managed
OPTIONAL CALL (f, managed) {
  WITH f WHERE managed IS NULL
  SET f.content = coalesce($content, f.content),
      f.metadata = coalesce($metadata, f.metadata),
      f.chunks = CASE WHEN $chunks IS NULL THEN f.chunks ELSE size($chunks) END,
      f.updated_at = $now
  WITH f
  CALL (f) {
    WITH f WHERE $chunks IS NOT NULL
    MATCH (f)-[:HAS_CHUNK]->(old:FileChunk)
    DETACH DELETE old
  }
  CALL (f) {
    UNWIND coalesce($chunks, []) AS chunk
    CREATE (f)-[:HAS_CHUNK]->(c:FileChunk)
    SET c = chunk
  }
  RETURN true AS written
}
RETURN managed, written IS NOT NULL AS written,
       f {.*, card_entries: null, card_support: null} AS file
