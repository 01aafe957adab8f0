// Benchmark only (tests/bench/stale_bench.py): beliefs $first..$last of one scope and level,
// created on the server with no embedding and no edge (ids are $prefix + number): bulk for the
// graph a propagation must not scan.
UNWIND range($first, $last) AS i
CREATE (o:Observation {id: $prefix + toString(i), workspace: $workspace, observer: $observer,
                       observed: $observed, level: $level, scope_key: $scope,
                       content: 'belief ' + toString(i), created_at: $now, stale: false})
RETURN count(o) AS created
