// Benchmark only (tests/bench/search_bench.py): scoped search with the scope filtered outside the
// index, for contrast: the workspace's top $k, then the scope filter. A small scope is rarely in
// the top k of its workspace.
MATCH (o:Observation)
  SEARCH o IN (VECTOR INDEX observation_vectors FOR $embedding
               WHERE o.workspace = $workspace
               LIMIT $k) SCORE AS score
WITH o, score
WHERE o.scope_key = $scope_key
RETURN o.id AS id, score
ORDER BY score DESC
