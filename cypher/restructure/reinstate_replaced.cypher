// What gone beliefs replaced ($ids: deleted, dropped by a reconciliation, or tombstoned by a
// purge about to erase them) is current again, unless something still replaces it. A belief
// reached from one of them down SUPERSEDES edges through gone beliefs only, itself not deleted,
// is reinstated (superseded_at cleared) when no belief left (not deleted, stale ones included:
// a reconciliation may keep them) is above it. Lisbon, replaced by Berlin, comes back when
// Berlin's only message is deleted; it stays replaced while Madrid, which replaced Berlin, is
// left. A correction does not count: deleting it does not bring back the words it corrected.
// What one gone belief replaced at once (Madrid replaced Lisbon and Berlin, dreamed together)
// is one value: the one stated last comes back, and replaces the others (origin 'deletion',
// at the gone update's time), so no two are current. The edges stay, as the gone beliefs'
// history. The caller has a dream of each view scheduled.
MATCH (g:Observation {workspace: $workspace})
WHERE g.id IN $ids AND g.deleted_at IS NOT NULL
MATCH p = (g)-[:SUPERSEDES]->{1,64}(old:Observation)
WHERE old.workspace = $workspace AND old.deleted_at IS NULL AND old.superseded_at IS NOT NULL
  AND all(r IN relationships(p) WHERE coalesce(r.origin, '') <> 'correction')
  AND all(x IN nodes(p)[1..-1] WHERE x.deleted_at IS NOT NULL)
  AND NOT EXISTS {
    MATCH (n:Observation)-[:SUPERSEDES]->{1,64}(old)
    WHERE n.deleted_at IS NULL
  }
WITH g, old, min(last(relationships(p)).at) AS at
WITH g, old, at, [coalesce(old.valid_at, old.created_at)] + COLLECT {
       MATCH (old)-[:DERIVED_FROM]->(k:Message) WHERE k.deleted_at IS NULL RETURN k.created_at
     } AS times
WITH g, old, at, reduce(t = times[0], x IN times | CASE WHEN x > t THEN x ELSE t END) AS stated
ORDER BY stated DESC, old.id
WITH g, collect({old: old, at: at}) AS back
// Every group decided before any is written: a belief one gone update leaves replaced (it
// replaced two at once, the other stated later) is not brought back by another, whatever
// order the groups come in.
WITH collect({first: back[0].old, rest: back[1..]}) AS groups
WITH groups, reduce(ids = [], group IN groups | ids + [r IN group.rest | r.old.id]) AS behind
UNWIND groups AS group
WITH DISTINCT group.first AS first, group.rest AS rest, behind
WHERE NOT first.id IN behind
// Read again by the next dream (dream_pending), as a new belief is: a value stated since
// (Madrid, derived while Berlin still replaced Lisbon) was compared with Berlin only, and
// would stay current beside it.
SET first.superseded_at = null, first.dream_pending = true
WITH first, rest
CALL (first, rest) {
  UNWIND rest AS r
  WITH r.old AS other, r.at AS at
  WHERE other <> first AND NOT EXISTS { (other)-[:SUPERSEDES]->{1,64}(first) }
    AND NOT EXISTS { (first)-[:SUPERSEDES]->(other) }
  CREATE (first)-[:SUPERSEDES {at: at, origin: 'deletion'}]->(other)
  SET other.superseded_at = coalesce(other.superseded_at, at)
  RETURN count(*) AS replaced
}
RETURN DISTINCT first.id AS id, first.observer AS observer, first.observed AS observed
