// What gone beliefs replaced ($ids: deleted, dropped by a reconciliation, or tombstoned by a
// purge about to erase them) is current again, unless something still replaces it. A belief
// reached from one of them down SUPERSEDES edges through gone beliefs only, itself not deleted,
// is reinstated (superseded_at cleared) when no belief left (not deleted, stale ones included:
// a reconciliation may keep them) is above it. Lisbon, replaced by Berlin, comes back when
// Berlin's only message is deleted; it stays replaced while Madrid, which replaced Berlin, is
// left. A correction does not count: deleting it does not bring back the words it corrected.
// The edges stay, as the gone beliefs' history.
MATCH (g:Observation {workspace: $workspace})
WHERE g.id IN $ids AND g.deleted_at IS NOT NULL
MATCH p = (g)-[:SUPERSEDES]->{1,64}(old:Observation)
WHERE old.workspace = $workspace AND old.deleted_at IS NULL AND old.superseded_at IS NOT NULL
  AND all(r IN relationships(p) WHERE coalesce(r.origin, '') <> 'correction')
  AND all(x IN nodes(p)[1..-1] WHERE x.deleted_at IS NOT NULL)
WITH DISTINCT old
WHERE NOT EXISTS {
  MATCH (n:Observation)-[:SUPERSEDES]->{1,64}(old)
  WHERE n.deleted_at IS NULL
}
SET old.superseded_at = null
RETURN old.id AS id, old.observer AS observer, old.observed AS observed
