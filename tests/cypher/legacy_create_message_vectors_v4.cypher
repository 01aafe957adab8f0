// message_vectors as layout 4 had it: Neo4j's default HNSW graph (m 16, ef_construction 100).
CREATE VECTOR INDEX message_vectors IF NOT EXISTS
FOR (m:Message) ON m.embedding
WITH [m.workspace, m.session, m.peer]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.type`: 'NONE'
}}
