// Benchmark only (tests/bench/search_bench.py): the plainest insert of ready-made Observation
// maps, to fill large search corpora fast. No source Message, no DERIVED_FROM edge, no dedup:
// the search statements read only the node's own properties. Each map carries its scope.
UNWIND $observations AS props
CREATE (o:Observation)
SET o = props, o.workspace = $workspace
RETURN count(o) AS created
