// After messages ($ids, deleted now) are gone, a current belief that cited one of them and is
// still stated by another may no longer be the newer of a knowledge update it made: "I live in
// Lisbon" (January), "in Berlin" (March), "in Lisbon" (June) made Lisbon replace Berlin from
// its June repeat; without June, Lisbon was last stated in January. Each replacement is
// measured as supersede_observations.cypher checks one (latest live statement, else valid_at,
// else created_at). The newest of the beliefs it replaced that were stated after it now
// replaces it (origin 'deletion', dated as the reversed update was); any other such belief is
// current again and is read by the next dream (dream_pending), which settles it. Corrections
// are left alone. A dream that unlinks an edited message from the beliefs it kept
// ($observation_ids: "in Lisbon" edited out of June's text) reverses their updates alike, with
// origin 'edit'; there the belief that replaces again is read by the next dream too, as the
// dream's own plan was made before it was current.
CALL () {
  MATCH (m:Message {workspace: $workspace})
  WHERE m.id IN $ids AND m.deleted_at IS NOT NULL
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  RETURN o
  UNION
  MATCH (o:Observation {workspace: $workspace})
  WHERE o.id IN $observation_ids
  RETURN o
}
WITH DISTINCT o
WHERE o.workspace = $workspace AND o.deleted_at IS NULL AND o.superseded_at IS NULL
  AND NOT coalesce(o.stale, false)
MATCH (o)-[s:SUPERSEDES]->(old:Observation)
WHERE old.workspace = $workspace AND old.deleted_at IS NULL
  AND coalesce(s.origin, '') <> 'correction'
  // Stale for an edit, it is reversed too (its dream judges it as current); stale for want of
  // any live message (deleted with the repeat, say), it has nothing left to stand on.
  AND (NOT coalesce(old.stale, false)
       OR EXISTS { (old)-[:DERIVED_FROM]->(k:Message) WHERE k.deleted_at IS NULL })
WITH o, s, old,
     [coalesce(o.valid_at, o.created_at)] + COLLECT {
       MATCH (o)-[:DERIVED_FROM]->(k:Message) WHERE k.deleted_at IS NULL RETURN k.created_at
     } AS mine,
     [coalesce(old.valid_at, old.created_at)] + COLLECT {
       MATCH (old)-[:DERIVED_FROM]->(k:Message) WHERE k.deleted_at IS NULL RETURN k.created_at
     } AS theirs
WITH o, s, old, reduce(t = mine[0], x IN mine | CASE WHEN x > t THEN x ELSE t END) AS mine,
     reduce(t = theirs[0], x IN theirs | CASE WHEN x > t THEN x ELSE t END) AS theirs
WHERE mine < theirs
WITH o, s, old, theirs
ORDER BY theirs DESC, old.id
WITH o, collect({s: s, old: old, at: s.at}) AS outdated
CALL (o, outdated) {
  UNWIND range(0, size(outdated) - 1) AS i
  WITH outdated[i].s AS s, outdated[i].old AS old, i = 0 AS newest
  DELETE s
  SET old.superseded_at = null,
      old.dream_pending = CASE WHEN newest AND $origin = 'deletion' THEN old.dream_pending
                               ELSE true END
  WITH old, newest WHERE newest
  // Dated when the reversed update was made: an asOf read since then shows one value.
  CREATE (old)-[:SUPERSEDES {at: outdated[0].at, origin: $origin}]->(o)
  RETURN collect(old.id) AS flipped
}
SET o.superseded_at = outdated[0].at
RETURN o.id AS id, o.observer AS observer, o.observed AS observed,
       [x IN outdated | x.old.id] AS reopened
