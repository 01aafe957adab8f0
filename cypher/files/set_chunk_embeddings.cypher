UNWIND $chunks AS chunk
MATCH (c:FileChunk {id: chunk.id})
SET c.embedding = chunk.embedding
RETURN count(c) AS updated
