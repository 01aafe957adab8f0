// A peer's file chunks, and how many of them have an embedding.
MATCH (:Peer {workspace: $workspace, name: $peer})-[:HAS_FILE]->(f:File {path: $path})
OPTIONAL MATCH (f)-[:HAS_CHUNK]->(c:FileChunk)
RETURN count(c) AS chunks, count(c.embedding) AS embedded, f.chunks AS counted,
       collect(c.content) AS contents
