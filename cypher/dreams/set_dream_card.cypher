// The peer card a dream leaves. Checked here, all or nothing: every line the dream wrote cites
// at least one observation, and every cited one is a current belief of this representation
// ($scope); a line without support (`own`) must be one the app wrote itself and is kept as is.
// App lines written while the dream ran (it read the card before) are kept too, after its own.
// The card is the system-managed File of the observed peer at $path, one chunk per line
// (embedded with the line's own embedding, or the one the same line had before).
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[:OBSERVES]->(b:Peer {workspace: $workspace, name: $observed})
OPTIONAL MATCH (b)-[:HAS_FILE]->(card:File {path: $path})
WHERE card.managed_by = 'system'
// App lines are read under the representation's lock, which the dream took at its start and
// setPeerCard takes first too: a card the app writes meanwhile is never lost to this one. (A
// lock on the card's file left out a first card, and moved updated_at on a card left unchanged.)
WITH b, [i IN range(0, size(coalesce(card.card_entries, [])) - 1)
           WHERE coalesce(card.card_support[i], '') = '' | card.card_entries[i]] AS app_lines
CALL (app_lines) {
  UNWIND range(0, size($lines) - 1) AS index
  WITH index, $lines[index] AS line
  CALL (line) {
    OPTIONAL MATCH (o:Observation)
    WHERE o.id IN line.support AND o.workspace = $workspace AND o.scope_key = $scope
      AND o.deleted_at IS NULL AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
    RETURN count(o) AS current
  }
  RETURN collect({index: index, line: line, problem: CASE
    WHEN line.own AND NOT line.text IN app_lines
      THEN 'card line ' + toString(index) + ' has no support and is not a line the app wrote'
    WHEN line.own THEN null
    WHEN current < size(line.support)
      THEN 'card line ' + toString(index) + ' cites observations that are not current '
           + 'beliefs of this representation'
  END}) AS checked
}
WITH b, app_lines, checked, [c IN checked WHERE c.problem IS NOT NULL] AS rejected
CALL (b, app_lines, checked, rejected) {
  WITH b, app_lines, checked WHERE size(rejected) = 0
  WITH b, checked,
       [l IN app_lines WHERE NOT l IN [c IN checked WHERE c.line.own | c.line.text]] AS added
  WITH b, [c IN checked | c.line.text] + added AS texts,
       [c IN checked | c.line.joined] + [l IN added | ''] AS support,
       [c IN checked | c.line.embedding] + [l IN added | null] AS vectors
  MERGE (f:File {workspace: $workspace, peer: $observed, path: $path})
    ON CREATE SET f.id = randomUUID(), f.created_at = $now, f.metadata = '{}',
                  f.managed_by = 'system'
  MERGE (b)-[:HAS_FILE]->(f)
  WITH f, texts, support, vectors, [(f)-[:HAS_CHUNK]->(c:FileChunk) | c] AS old
  WITH f, texts, support, vectors, old,
       [c IN old | {content: c.content, embedding: c.embedding}] AS kept
  SET f.card_observer = $observer, f.card_entries = texts, f.card_support = support,
      f.content = reduce(text = '', line IN texts | text + '- ' + line + '\n'),
      f.chunks = size(texts), f.updated_at = $now
  FOREACH (c IN old | DETACH DELETE c)
  WITH f, texts, vectors, kept
  CALL (f, texts, vectors, kept) {
    UNWIND range(0, size(texts) - 1) AS i
    CREATE (f)-[:HAS_CHUNK]->(c:FileChunk)
    SET c.id = randomUUID(), c.workspace = f.workspace, c.file_id = f.id, c.peer = f.peer,
        c.peer_key = $peer_key, c.path = f.path, c.index = i, c.content = texts[i],
        c.embedding = coalesce(vectors[i],
                               head([k IN kept WHERE k.content = texts[i] | k.embedding]))
  }
  RETURN count(*) AS written
}
RETURN [c IN checked | {id: toString(c.index), problem: c.problem}] AS items, written > 0 AS written
