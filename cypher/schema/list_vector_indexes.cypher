SHOW VECTOR INDEXES
YIELD name, labelsOrTypes, properties, options, state
RETURN name, labelsOrTypes AS labels, properties,
       options.indexConfig['vector.dimensions'] AS dimensions,
       options.indexConfig['vector.hnsw.m'] AS hnsw_m,
       options.indexConfig['vector.hnsw.ef_construction'] AS hnsw_ef_construction, state
