// Benchmark only (tests/bench/search_bench.py): the naive scoped search, for contrast. The global
// top $k of the vector index, then the scope filter: a small scope is rarely in the global top k.
CALL db.index.vector.queryNodes('observation_embedding', $k, $embedding)
YIELD node AS o, score
WHERE o.workspace = $workspace AND o.observer = $observer AND o.observed = $observed
RETURN o.id AS id, score
ORDER BY score DESC
