// Vector candidates among the chunks of some peers' files, in one round trip. Their size (each
// File counts its chunks) picks the path: up to $exact_scan_limit chunks, an exact cosine over
// them; above, the file_chunk_vectors index, filtered inside by workspace and peers, asked for
// its $candidates nearest ($wide above $wide_from chunks). Scores are the index's, which
// without quantization equal vector.similarity.cosine. `raw` is what the path gave.
UNWIND $peers AS name
OPTIONAL MATCH (:Peer {workspace: $workspace, name: name})-[:HAS_FILE]->(f:File)
WITH sum(coalesce(f.chunks, 0)) AS total
OPTIONAL CALL (total) {
  WITH total WHERE total <= $exact_scan_limit
  // In a subquery of its own, so the size test runs before the scan.
  CALL () {
    UNWIND $peers AS name
    MATCH (:Peer {workspace: $workspace, name: name})-[:HAS_FILE]->(:File)
          -[:HAS_CHUNK]->(c:FileChunk)
    WHERE c.embedding IS NOT NULL
    RETURN c, vector.similarity.cosine(c.embedding, $embedding) AS score
  }
  RETURN c, score
  UNION ALL
  WITH total WHERE $exact_scan_limit < total AND total <= $wide_from
  MATCH (c:FileChunk)
    SEARCH c IN (VECTOR INDEX file_chunk_vectors FOR $embedding
                 WHERE c.workspace = $workspace AND c.peer IN $peers
                 LIMIT $candidates) SCORE AS score
  RETURN c, score
  UNION ALL
  WITH total WHERE total > $exact_scan_limit AND total > $wide_from
  MATCH (c:FileChunk)
    SEARCH c IN (VECTOR INDEX file_chunk_vectors FOR $embedding
                 WHERE c.workspace = $workspace AND c.peer IN $peers
                 LIMIT $wide) SCORE AS score
  RETURN c, score
}
WITH total, collect(CASE WHEN c IS NOT NULL THEN {c: c, score: score} END) AS hits
CALL (hits) {
  UNWIND hits AS h
  WITH h.c AS c, h.score AS score
  ORDER BY score DESC
  LIMIT $limit
  RETURN collect({chunk: c {.*, embedding: null}, score: score}) AS found
}
RETURN total, size(hits) AS raw, found
