// The live messages that erased beliefs ($ids) were also taken from. The purge deletes such a
// belief (its wording may have come from a purged message) and derives these messages again, so
// what they state comes back from them alone. Beliefs held by or about a purged peer ($peer,
// null when only messages are purged) are left out: that peer's views are erased, not rebuilt.
MATCH (o:Observation {workspace: $workspace})-[:DERIVED_FROM]->(m:Message {workspace: $workspace})
WHERE o.id IN $ids AND m.deleted_at IS NULL
  AND ($peer IS NULL OR (o.observer <> $peer AND o.observed <> $peer))
RETURN DISTINCT m.id AS id
