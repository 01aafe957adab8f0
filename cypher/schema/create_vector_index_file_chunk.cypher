// Chunks of peer files, filtered inside the index by workspace and peer (one or several).
CREATE VECTOR INDEX file_chunk_vectors IF NOT EXISTS
FOR (c:FileChunk) ON c.embedding
WITH [c.workspace, c.peer]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.type`: 'NONE'
}}
