CREATE VECTOR INDEX file_chunk_embedding IF NOT EXISTS
FOR (c:FileChunk) ON c.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
