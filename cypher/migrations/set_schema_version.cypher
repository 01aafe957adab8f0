MATCH (s:BeliefgraphSchema {name: 'beliefgraph'})
SET s.version = $version
RETURN s.version AS version
