// A new file of a peer with its chunks, in one write. Nothing is written when the peer is
// missing (no row), the path is taken (`exists`) or the peer holds $max_files files already
// (its own: the cards other peers keep of it are theirs, and do not count).
MATCH (p:Peer {workspace: $workspace, name: $peer})
OPTIONAL MATCH (p)-[:HAS_FILE]->(other:File)
WITH p, count(other) - count(other.managed_by) AS files,
     sum(CASE WHEN other.path = $file.path THEN 1 ELSE 0 END) > 0 AS exists
OPTIONAL CALL (p, files, exists) {
  WITH p WHERE NOT exists AND files < $max_files
  CREATE (p)-[:HAS_FILE]->(f:File)
  SET f = $file
  WITH f
  CALL (f) {
    UNWIND $chunks AS chunk
    CREATE (f)-[:HAS_CHUNK]->(c:FileChunk)
    SET c = chunk
  }
  // A map, not the node: a node returned from an OPTIONAL CALL that wrote is not null even
  // when the subquery gave no row.
  RETURN f {.*} AS file
}
RETURN exists, files, file
