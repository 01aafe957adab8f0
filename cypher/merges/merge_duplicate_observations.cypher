// The dedup rule after a merge. Each pair ($pairs: {a, b}, no belief in two pairs) holds a
// moved belief and the belief of its new representation it repeats: the older stays (by
// created_at, then id) and takes the other's sources (messages with their spans, premises),
// its dependents' DERIVED_FROM edges, its SUPERSEDES edges both ways (an update it made, or
// undid, is the kept one's), its lines' support in the view's card and its derivation count
// (less the live messages both cite, counted once: a view's belief and another view's of one
// message became one); the other is then removed. Tombstoned, it kept the words of a message
// without citing it (a purge of that message missed them) and, read as a deleted fact, kept
// that fact from being derived again. The one that stays keeps dedup_pending if it has it
// (checked again: it may repeat another).
// $settled: moved beliefs that repeat nothing, checked off.
CALL () {
  UNWIND $settled AS id
  MATCH (o:Observation {id: id})
  WHERE o.workspace = $workspace
  REMOVE o.dedup_pending
  RETURN count(o) AS settled
}
CALL () {
  UNWIND $pairs AS pair
  MATCH (a:Observation {id: pair.a})
  MATCH (b:Observation {id: pair.b})
  WHERE a.workspace = $workspace AND b.workspace = $workspace
  WITH a, b, a.created_at < b.created_at OR (a.created_at = b.created_at AND a.id < b.id) AS older
  WITH CASE WHEN older THEN a ELSE b END AS kept, CASE WHEN older THEN b ELSE a END AS dup
  WITH kept, dup, COUNT { MATCH (dup)-[:DERIVED_FROM]->(m:Message)<-[:DERIVED_FROM]-(kept)
                          WHERE m.deleted_at IS NULL } AS shared
  CALL (kept, dup) {
    MATCH (dup)-[d:DERIVED_FROM]->(source)
    WHERE source <> kept
    MERGE (kept)-[k:DERIVED_FROM]->(source)
    ON CREATE SET k.span = d.span
    DELETE d
  }
  CALL (kept, dup) {
    MATCH (child:Observation)-[d:DERIVED_FROM]->(dup)
    WHERE child <> kept
    MERGE (child)-[:DERIVED_FROM]->(kept)
    DELETE d
  }
  CALL (kept, dup) {
    MATCH (dup)-[d:SUPERSEDES]->(old:Observation)
    WHERE old <> kept
    MERGE (kept)-[k:SUPERSEDES]->(old)
    ON CREATE SET k = properties(d)
    DELETE d
  }
  CALL (kept, dup) {
    MATCH (newer:Observation)-[d:SUPERSEDES]->(dup)
    WHERE newer <> kept
    MERGE (newer)-[k:SUPERSEDES]->(kept)
    ON CREATE SET k = properties(d)
    DELETE d
  }
  // Any card of the workspace: one still to move (the source's) cites it under its old names.
  CALL (kept, dup) {
    MATCH (f:File {workspace: $workspace})
    WHERE f.managed_by = 'system'
      AND any(line IN coalesce(f.card_support, []) WHERE dup.id IN split(line, ' '))
    SET f.card_support = [line IN f.card_support |
      reduce(t = '', x IN split(line, ' ') |
        t + CASE WHEN t = '' THEN '' ELSE ' ' END + CASE WHEN x = dup.id THEN kept.id ELSE x END)]
  }
  WITH kept, dup,
       coalesce(kept.times_derived, 1) + coalesce(dup.times_derived, 1) - shared AS times
  SET kept.times_derived = CASE WHEN times < 1 THEN 1 ELSE times END
  DETACH DELETE dup
  RETURN count(*) AS merged
}
RETURN settled, merged
