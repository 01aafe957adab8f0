// Benchmark only (tests/bench/search_bench.py): the observation vector index's configuration
// (HNSW m and ef_construction, quantization), for the report.
SHOW VECTOR INDEXES YIELD name, options
WHERE name = $name
RETURN name, options
