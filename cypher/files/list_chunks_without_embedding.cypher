// Chunks written without an embedding (peer cards moved from an earlier layout, or written
// where no embedder was at hand), for start-up to embed.
MATCH (c:FileChunk)
WHERE c.embedding IS NULL
RETURN c.id AS id, c.content AS content
LIMIT $limit
