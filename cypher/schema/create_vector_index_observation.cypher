// One index for every belief, filtered inside the index by workspace, representation
// (scope_key: one or several at once) and level. Unquantized, as message_vectors.
CREATE VECTOR INDEX observation_vectors IF NOT EXISTS
FOR (o:Observation) ON o.embedding
WITH [o.workspace, o.scope_key, o.level]
OPTIONS {indexConfig: {
  `vector.dimensions`: $dimensions,
  `vector.similarity_function`: 'cosine',
  `vector.quantization.type`: 'NONE'
}}
