// An app writes the card itself: its lines cite nothing (a dream keeps them as they are).
// The card is a system-managed File of the observed peer at $path: its content is the entries
// as a markdown list, and each entry is one chunk, embedded with $vectors[i] or else with the
// embedding the same entry had before; the old chunks go in the same write.
MATCH (a:Peer {workspace: $workspace, name: $observer})
MATCH (b:Peer {workspace: $workspace, name: $observed})
MERGE (a)-[r:OBSERVES]->(b)
// The representation's lock first, as a dream takes it at its start (lock_dream_view.cypher):
// a card written while a dream runs waits for it, and so the dream's card (which keeps the app's
// lines) reads this one, even when it is the first card of the view and has no file to lock.
SET r.card_lock = true REMOVE r.card_lock
MERGE (f:File {workspace: $workspace, peer: $observed, path: $path})
  ON CREATE SET f.id = randomUUID(), f.created_at = $now, f.metadata = '{}',
                f.managed_by = 'system'
MERGE (b)-[:HAS_FILE]->(f)
// The file's lock before its chunks are read: concurrent writes of one card read the chunks
// the last one left, not chunks another has deleted meanwhile (its old lines stayed searchable).
SET f.updated_at = $now
WITH f, [(f)-[:HAS_CHUNK]->(c:FileChunk) | c] AS old
WITH f, old, [c IN old | {content: c.content, embedding: c.embedding}] AS kept
SET f.card_observer = $observer, f.card_entries = $card, f.card_support = [l IN $card | ''],
    f.content = reduce(text = '', line IN $card | text + '- ' + line + '\n'),
    f.chunks = size($card), f.updated_at = $now
FOREACH (c IN old | DETACH DELETE c)
WITH f, kept
CALL (f, kept) {
  UNWIND range(0, size($card) - 1) AS i
  CREATE (f)-[:HAS_CHUNK]->(c:FileChunk)
  SET c.id = randomUUID(), c.workspace = f.workspace, c.file_id = f.id, c.peer = f.peer,
      c.peer_key = $peer_key, c.path = f.path, c.index = i, c.content = $card[i],
      c.embedding = coalesce($vectors[i],
                             head([k IN kept WHERE k.content = $card[i] | k.embedding]))
}
RETURN f.card_entries AS card, f.card_support AS card_support, f.updated_at AS updated_at
