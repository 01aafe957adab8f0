// One card from its OBSERVES edge into the system-managed File of the observed peer at $path
// (the layout set_peer_card.cypher writes; chunks without embeddings, which start-up fills
// in), and the edge's card properties removed, in one write: run again, it finds nothing.
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(b:Peer {workspace: $workspace, name: $observed})
WITH r, b, coalesce(r.card, []) AS card
CALL (r, b, card) {
  WITH r, b, card WHERE size(card) > 0
  MERGE (f:File {workspace: $workspace, peer: $observed, path: $path})
    ON CREATE SET f.id = randomUUID(), f.created_at = coalesce(r.card_updated_at, $now),
                  f.metadata = '{}', f.managed_by = 'system'
  MERGE (b)-[:HAS_FILE]->(f)
  WITH r, f, card, [(f)-[:HAS_CHUNK]->(c:FileChunk) | c] AS old
  SET f.card_observer = $observer, f.card_entries = card,
      f.card_support = [i IN range(0, size(card) - 1) | coalesce(r.card_support[i], '')],
      f.content = reduce(text = '', line IN card | text + '- ' + line + '\n'),
      f.chunks = size(card), f.updated_at = coalesce(r.card_updated_at, $now)
  FOREACH (c IN old | DETACH DELETE c)
  WITH f, card
  CALL (f, card) {
    UNWIND range(0, size(card) - 1) AS i
    CREATE (f)-[:HAS_CHUNK]->(c:FileChunk)
    SET c.id = randomUUID(), c.workspace = f.workspace, c.file_id = f.id, c.peer = f.peer,
        c.peer_key = $peer_key, c.path = f.path, c.index = i, c.content = card[i]
  }
}
REMOVE r.card, r.card_support, r.card_updated_at
RETURN count(*) AS moved
