// Benchmark only (tests/bench/search_bench.py): the OBSERVES edge of every (observer, observed)
// scope of the search corpus; both peers must exist.
UNWIND $scopes AS scope
MATCH (a:Peer {workspace: $workspace, name: scope.observer})
MATCH (b:Peer {workspace: $workspace, name: scope.observed})
MERGE (a)-[:OBSERVES]->(b)
RETURN count(*) AS scopes
