// Benchmark only (tests/bench/search_bench.py): the plainest insert of ready-made Observation
// maps, to fill large search corpora fast. No source Message, no DERIVED_FROM edge, no dedup:
// the search statements read only the node's own properties. Each map carries its scope; a
// scope with an index of its own labels its new beliefs, as create_explicit_observations does.
UNWIND $observations AS props
CREATE (o:Observation)
SET o = props, o.workspace = $workspace
WITH o
OPTIONAL MATCH (:Peer {workspace: $workspace, name: o.observer})-[r:OBSERVES]->(:Peer {workspace: $workspace, name: o.observed})
FOREACH (label IN CASE WHEN r.vector_label IS NULL THEN [] ELSE [r.vector_label] END |
  SET o:$(label)
)
RETURN count(o) AS created
