// Benchmark only (tests/bench/search_bench.py): the plainest insert of ready-made Observation
// maps, to fill large search corpora fast. No source Message, no DERIVED_FROM edge, no dedup:
// the search statements read only the node's own properties. The OBSERVES edges count the new
// beliefs, as create_explicit_observations does (searches size their path by that count).
UNWIND $observations AS props
CREATE (o:Observation)
SET o = props, o.workspace = $workspace
WITH o.observer AS observer, o.observed AS observed, count(*) AS added
MATCH (a:Peer {workspace: $workspace, name: observer})
MATCH (b:Peer {workspace: $workspace, name: observed})
MERGE (a)-[r:OBSERVES]->(b)
SET r.observations = coalesce(r.observations, 0) + added
RETURN sum(added) AS created
