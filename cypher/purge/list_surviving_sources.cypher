// The live messages that erased beliefs ($ids) were also taken from. The purge deletes such a
// belief (its wording may have come from a purged message) and derives these messages again, so
// what they state comes back from them alone. (A belief deleted or corrected away before the
// purge that such a message supports is kept, so what was deleted does not come back:
// find_message_derivations.cypher.) Beliefs held by or about a purged peer ($peer, null when
// only messages are purged) are left out: that peer's views are erased, not rebuilt.
MATCH (o:Observation {workspace: $workspace})-[:DERIVED_FROM]->(m:Message {workspace: $workspace})
WHERE o.id IN $ids AND m.deleted_at IS NULL
  AND ($peer IS NULL OR (o.observer <> $peer AND o.observed <> $peer))
RETURN DISTINCT m.id AS id
