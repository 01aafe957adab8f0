// Holds a peer's file, as a write of its content does, and gives it one more chunk (tests only:
// a transaction left open over this stands for a concurrent write).
MATCH (f:File {workspace: $workspace, peer: $peer, path: $path})
SET f.updated_at = datetime()
CREATE (f)-[:HAS_CHUNK]->(c:FileChunk)
SET c.id = randomUUID(), c.workspace = f.workspace, c.file_id = f.id, c.peer = f.peer,
    c.path = f.path, c.index = f.chunks, c.content = 'added meanwhile'
SET f.chunks = f.chunks + 1
RETURN c.id AS id
