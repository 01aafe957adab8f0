// Fulltext hits among the chunks of some peers' files: $query requires their peer keys, so
// Lucene returns only chunks in scope, best first; at most $candidates of them.
// With $embedding, each hit also carries its similarity to it (as the vector index scores).
CALL db.index.fulltext.queryNodes('file_chunk_text', $query, {limit: $candidates})
YIELD node, score
WITH collect({c: node, score: score}) AS hits
WITH size(hits) AS raw,
     [h IN hits WHERE h.c.workspace = $workspace AND h.c.peer IN $peers][0..$limit] AS kept
CALL (kept) {
  UNWIND kept AS k
  WITH k.c AS c, k.score AS score
  RETURN collect({chunk: c {.*, embedding: null}, score: score,
                  similarity: CASE WHEN $embedding IS NULL OR c.embedding IS NULL THEN null
                      ELSE vector.similarity.cosine(c.embedding, $embedding) END}) AS found
}
RETURN raw, found
