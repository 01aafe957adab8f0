// Up to $batch files of the source peer, or cards it wrote of others, become the target's
// (their HAS_FILE edge included).
// A card keeps its place: card.md for a peer's card of itself, cards/<observer>.md otherwise.
// On a path the target already uses, a card of the target's wins (the moved one is deleted,
// with its chunks; dreams rebuild cards) and a user file moves to merged/<source>/<path>, or,
// where that path is taken too (a file the target made there, or one of the source's that
// keeps its path as it moves: the batch's clash checks all read before any file moves) or
// longer than $max_path characters, to merged/<source>/<file id>/<name> (its last segment),
// else merged/<source>/<file id>: a clash never fails the step (files are unique by path per
// peer).
// Two cards of one batch can become one: the source's card of itself and the target's card of
// the source are both the target's card of itself. The one the target wrote is kept.
MATCH (f:File {workspace: $workspace})
WHERE f.peer = $source OR f.card_observer = $source
WITH f
LIMIT $batch
// Each file's lock before its chunks are read (to delete or to relabel): chunks a card write
// holding it adds would otherwise stay behind, with no file or under the source's name.
SET f.move_lock = true REMOVE f.move_lock
WITH f,
     CASE f.peer WHEN $source THEN $target ELSE f.peer END AS peer,
     CASE f.card_observer WHEN $source THEN $target ELSE f.card_observer END AS observer
WITH f, peer, observer,
     CASE
       WHEN observer IS NULL THEN f.path
       WHEN observer = peer THEN 'card.md'
       ELSE 'cards/' + observer + '.md'
     END AS wanted
ORDER BY coalesce(f.card_observer = $target, false) DESC, f.updated_at DESC, f.id
WITH peer, wanted, collect({f: f, observer: observer}) AS group
UNWIND range(0, size(group) - 1) AS rank
WITH group[rank].f AS f, group[rank].observer AS observer, peer, wanted, rank > 0 AS beaten
OPTIONAL MATCH (clash:File {workspace: $workspace, peer: peer, path: wanted})
WHERE clash <> f
WITH f, peer, observer, wanted, beaten, clash,
     'merged/' + $source + '/' + f.path AS aside,
     'merged/' + $source + '/' + f.id + '/' + last(split(f.path, '/')) AS by_id
WITH f, peer, observer, wanted, beaten, clash,
     CASE
       WHEN size(aside) <= $max_path
            AND NOT EXISTS { (:File {workspace: $workspace, peer: peer, path: aside}) }
            AND NOT EXISTS { (:File {workspace: $workspace, peer: $source, path: aside}) }
         THEN aside
       WHEN size(by_id) <= $max_path
            AND NOT EXISTS { (:File {workspace: $workspace, peer: peer, path: by_id}) }
            AND NOT EXISTS { (:File {workspace: $workspace, peer: $source, path: by_id}) }
         THEN by_id
       ELSE 'merged/' + $source + '/' + f.id
     END AS aside
WITH f, peer, observer, wanted,
     (clash IS NOT NULL OR beaten) AND observer IS NOT NULL AS discard,
     CASE WHEN clash IS NULL THEN wanted ELSE aside END AS path
CALL (f, discard) {
  WITH f WHERE discard
  MATCH (f)-[:HAS_CHUNK]->(c:FileChunk)
  DETACH DELETE c
}
CALL (f, discard, peer, observer, path) {
  WITH f WHERE NOT discard
  SET f.peer = peer, f.card_observer = observer, f.path = path
  WITH f
  OPTIONAL MATCH (:Peer)-[held:HAS_FILE]->(f)
  DELETE held
  WITH DISTINCT f
  MATCH (owner:Peer {workspace: $workspace, name: f.peer})
  CREATE (owner)-[:HAS_FILE]->(f)
  WITH f
  MATCH (f)-[:HAS_CHUNK]->(c:FileChunk)
  SET c.peer = peer, c.path = path,
      c.peer_key = CASE WHEN peer = $target THEN $peer_key ELSE c.peer_key END
}
WITH f, discard
CALL (f, discard) {
  WITH f WHERE discard
  DETACH DELETE f
}
RETURN count(*) AS moved
