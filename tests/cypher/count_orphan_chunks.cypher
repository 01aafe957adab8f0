// File chunks of a workspace that no file holds (tests only).
MATCH (c:FileChunk {workspace: $workspace})
WHERE NOT EXISTS { (:File)-[:HAS_CHUNK]->(c) }
RETURN count(c) AS orphans
