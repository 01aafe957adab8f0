// The schema marker: which migrations this graph has had. Writing it is also the first data
// write of a store upgraded from Neo4j 5, which moves the database to the new kernel version
// (until then it cannot create vector indexes with filter properties).
MERGE (s:BeliefgraphSchema {name: 'beliefgraph'})
ON CREATE SET s.version = 0
RETURN s.version AS version
