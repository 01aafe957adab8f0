CREATE VECTOR INDEX message_embedding IF NOT EXISTS
FOR (m:Message) ON m.embedding
OPTIONS {indexConfig: {`vector.dimensions`: $dimensions, `vector.similarity_function`: 'cosine'}}
