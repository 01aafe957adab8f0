// Tombstones messages (deleted_at) and marks stale each explicit belief left with no live
// source message: it rested on what was deleted. A belief with another live source stays
// current. Already deleted messages are left as they are (deleting twice changes nothing). A
// deleted message gives up its client id: sent again, that id stores a new message rather than
// answering with the deleted one.
// Each belief marked counts one more invalidation (mark_stale_descendants.cypher says why).
MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids AND m.deleted_at IS NULL
SET m.deleted_at = $now
REMOVE m.client_id
WITH collect(m) AS gone
CALL (gone) {
  UNWIND gone AS m
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  WITH DISTINCT o
  WHERE o.workspace = $workspace AND o.deleted_at IS NULL
    AND NOT EXISTS {
      MATCH (o)-[:DERIVED_FROM]->(other:Message)
      WHERE other.deleted_at IS NULL
    }
  SET o.stale = true, o.stale_reason = $reason, o.stale_at = $now, o.reconcile_pending = true,
      o.stale_version = coalesce(o.stale_version, 0) + 1
  RETURN collect({id: o.id, observer: o.observer, observed: o.observed}) AS orphaned
}
RETURN [m IN gone | m {.id, .session, .seq}] AS deleted, orphaned
