// Benchmark only: DERIVED_FROM edges (child -> premise) between beliefs created by id.
UNWIND $edges AS e
MATCH (c:Observation {id: e.child})
MATCH (p:Observation {id: e.premise})
CREATE (c)-[:DERIVED_FROM]->(p)
RETURN count(*) AS linked
