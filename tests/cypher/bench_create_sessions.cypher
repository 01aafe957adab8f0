// Benchmark only (tests/bench/api_synthetic.py): many sessions at once, as merge_session
// creates them one by one (`$sessions`: validated Session maps of one workspace).
UNWIND $sessions AS props
MERGE (s:Session {workspace: $workspace, name: props.name})
ON CREATE SET s += props
RETURN count(s) AS sessions
