// Times as releases before normalising them wrote a value read back from Neo4j: under the zone
// name UTC rather than the offset Z (the same instant, but not equal to it in Cypher).
MATCH (o:Observation {workspace: $workspace})
SET o.valid_at = datetime({datetime: o.valid_at, timezone: 'UTC'})
RETURN count(o) AS named
