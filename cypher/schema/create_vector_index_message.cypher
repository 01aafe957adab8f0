// One index for every message: the WITH properties filter inside the index (SEARCH ... WHERE),
// so a search of one workspace, session or peer gets that scope's nearest neighbours, not the
// global ones filtered afterwards. Unquantized: quantized vectors lose recall in large scopes.
// The HNSW graph is denser than the default (m 16, ef_construction 100); the numbers and why
// are MESSAGE_INDEX_GRAPH in graph/repo/retrieval.py.
CREATE VECTOR INDEX message_vectors IF NOT EXISTS
FOR (m:Message) ON m.embedding
WITH [m.workspace, m.session, m.peer]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.type`: 'NONE',
  `vector.hnsw.m`: $hnsw_m,
  `vector.hnsw.ef_construction`: $hnsw_ef_construction
}}
