// Benchmark only (tests/bench/api_synthetic.py): many peers at once, as merge_peer creates
// them one by one (`$peers`: validated Peer maps of one workspace).
UNWIND $peers AS props
MERGE (p:Peer {workspace: $workspace, name: props.name})
ON CREATE SET p += props
RETURN count(p) AS peers
