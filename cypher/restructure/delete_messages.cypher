// Tombstones messages (deleted_at) and marks stale each explicit belief left with no live
// source message: it rested on what was deleted. A belief with another live source stays
// current, unless a deleted message dated it (below). Already deleted messages are left as they are (deleting twice changes nothing). A
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
CALL (gone) {
  // A belief another live message still states stays current, but one dated by a message
  // deleted here (its session and time) turns stale: its reconciliation dates it, and its
  // words, by a message left (reconcile_beliefs.cypher), or a session filter would miss it.
  // Times are compared as instants: one stored under the zone name UTC is not equal to the
  // same time at offset Z.
  UNWIND gone AS m
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  WHERE o.workspace = $workspace AND o.deleted_at IS NULL AND o.level = 'explicit'
    AND o.superseded_at IS NULL AND o.session = m.session
    AND o.valid_at.epochSeconds = m.created_at.epochSeconds
    AND o.valid_at.nanosecond = m.created_at.nanosecond
  WITH DISTINCT o
  WHERE EXISTS {
      MATCH (o)-[:DERIVED_FROM]->(k:Message)
      WHERE k.deleted_at IS NULL
    }
    AND NOT EXISTS {
      MATCH (o)-[:DERIVED_FROM]->(k:Message)
      WHERE k.deleted_at IS NULL AND k.session = o.session
        AND k.created_at.epochSeconds = o.valid_at.epochSeconds
        AND k.created_at.nanosecond = o.valid_at.nanosecond
    }
  WITH o, coalesce(o.stale, false) AS was_stale
  SET o.stale = true, o.reconcile_pending = true,
      o.stale_version = coalesce(o.stale_version, 0) + 1,
      o.stale_reason = CASE WHEN was_stale THEN o.stale_reason ELSE $redate_reason END,
      o.stale_at = CASE WHEN was_stale THEN o.stale_at ELSE $now END
  RETURN collect({id: o.id, observer: o.observer, observed: o.observed}) AS redated
}
RETURN [m IN gone | m {.id, .session, .seq}] AS deleted, orphaned, redated
