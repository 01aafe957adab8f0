// Benchmark only: the baseline, one pass over every belief of the workspace (what any
// propagation that scans the graph, instead of walking from the roots, must at least pay).
MATCH (o:Observation {workspace: $workspace})
WHERE o.stale = false
RETURN count(o) AS scanned
