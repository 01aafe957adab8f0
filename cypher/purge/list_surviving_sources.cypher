// The live messages that erased beliefs ($ids) were also taken from. The purge deletes such a
// belief (its wording may have come from a purged message) and derives these messages again, so
// what they state comes back from them alone. `blocked`: the message also supported an erased
// belief that was deleted or corrected away before the purge (not `purging`, or superseded):
// derived again, it would bring that fact back, its tombstone being gone. Beliefs held by or
// about a purged peer ($peer, null when only messages are purged) are left out: that peer's
// views are erased, not rebuilt.
MATCH (o:Observation {workspace: $workspace})-[:DERIVED_FROM]->(m:Message {workspace: $workspace})
WHERE o.id IN $ids AND m.deleted_at IS NULL
  AND ($peer IS NULL OR (o.observer <> $peer AND o.observed <> $peer))
WITH m, collect(o) AS erased
RETURN m.id AS id,
       any(o IN erased WHERE o.purging IS NULL OR o.superseded_at IS NOT NULL) AS blocked
