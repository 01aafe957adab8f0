// Files that hold purged data, with their chunks: every file of the purged peer ($peer, null
// when only messages are purged), the cards it wrote of other peers, and every card with a
// line resting on a purged belief ($observation_ids); a dream writes such a card again from
// what is left. Cards (system files with card_observer) and other files are counted apart.
// Up to $batch files per run.
MATCH (f:File {workspace: $workspace})
WHERE f.peer = $peer OR f.card_observer = $peer
   OR (f.card_observer IS NOT NULL
       AND any(line IN coalesce(f.card_support, [])
               WHERE any(id IN split(line, ' ') WHERE id IN $observation_ids)))
WITH f
LIMIT $batch
// The file's lock before its chunks are read: a write holding it (setPeerCard, an update) may
// be adding chunks, which a list read before would leave behind, held by no file.
SET f.purge_lock = true REMOVE f.purge_lock
WITH f
OPTIONAL MATCH (f)-[:HAS_CHUNK]->(c:FileChunk)
WITH f, f.card_observer IS NOT NULL AS card, f.card_observer AS observer, f.peer AS observed,
     collect(c) AS chunks
FOREACH (c IN chunks | DETACH DELETE c)
DETACH DELETE f
RETURN count(*) AS deleted,
       sum(CASE WHEN card THEN 1 ELSE 0 END) AS cards,
       collect(DISTINCT CASE WHEN card THEN [observer, observed] END) AS card_views,
       sum(CASE WHEN card THEN 0 ELSE 1 END) AS files,
       sum(size(chunks)) AS chunks
