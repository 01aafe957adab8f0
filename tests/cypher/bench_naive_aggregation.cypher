// Benchmark only (tests/bench/tree_bench.py): the peers below $peer found by a plain
// variable-length match, which walks every MEMBER_OF path (the baseline for the product's
// one-shortest-path-per-peer traversal, members/list_aggregation_peers).
MATCH (sub:Peer)-[:MEMBER_OF*1..32]->(:Peer {workspace: $workspace, name: $peer})
RETURN DISTINCT sub.name AS name
