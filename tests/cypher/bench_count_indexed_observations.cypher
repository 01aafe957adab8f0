// Benchmark only (tests/bench/search_bench.py): how many observations the global vector index
// holds (all workspaces: the index is shared), next to how many this workspace holds.
MATCH (o:Observation)
WITH count(o) AS indexed
OPTIONAL MATCH (w:Observation {workspace: $workspace})
RETURN indexed, count(w) AS in_workspace
