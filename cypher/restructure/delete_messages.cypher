// Tombstones messages (deleted_at) and marks stale each explicit belief left with no live
// source message: it rested on what was deleted. A belief with another live source stays
// current (dated anew if a deleted message dated it, below). Already deleted messages are left
// as they are (deleting twice changes nothing). A deleted message gives up its client id: sent
// again, that id stores a new message rather than answering with the deleted one.
// Each belief marked counts one more invalidation (mark_stale_descendants.cypher says why).
// A belief left current counts the deleted messages it cited once less in times_derived (at
// least 1): it says how many messages state it, as an edit's reconciliation keeps it.
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
  UNWIND gone AS m
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  WHERE o.workspace = $workspace AND o.deleted_at IS NULL
  WITH o, count(DISTINCT m) AS lost
  WHERE EXISTS {
    MATCH (o)-[:DERIVED_FROM]->(other:Message)
    WHERE other.deleted_at IS NULL
  }
  SET o.times_derived = CASE WHEN coalesce(o.times_derived, 1) - lost < 1 THEN 1
                             ELSE coalesce(o.times_derived, 1) - lost END
  RETURN count(o) AS recounted
}
CALL (gone) {
  // A belief another live message still states stays current; one whose session and time were
  // a deleted message's takes those of a message left, as reconciliation picks after an edit
  // (reconcile_beliefs.cypher): its own session's earliest, else the earliest. A session filter
  // finds it where it is still said. The caller dates its words anew. Times compare as
  // instants: one stored under the zone name UTC is not equal to the same time at offset Z.
  UNWIND gone AS m
  MATCH (o:Observation)-[:DERIVED_FROM]->(m)
  WHERE o.workspace = $workspace AND o.deleted_at IS NULL AND o.level = 'explicit'
    AND o.superseded_at IS NULL AND o.session = m.session
    AND o.valid_at.epochSeconds = m.created_at.epochSeconds
    AND o.valid_at.nanosecond = m.created_at.nanosecond
  WITH DISTINCT o
  MATCH (o)-[:DERIVED_FROM]->(k:Message)
  WHERE k.workspace = $workspace AND k.deleted_at IS NULL
  WITH o, k
  ORDER BY k.created_at, k.id
  WITH o, collect(k) AS left
  WHERE NOT any(k IN left WHERE k.session = o.session
                                AND k.created_at.epochSeconds = o.valid_at.epochSeconds
                                AND k.created_at.nanosecond = o.valid_at.nanosecond)
  WITH o, coalesce([k IN left WHERE k.session = o.session][0], left[0]) AS first
  SET o.session = first.session, o.valid_at = first.created_at
  RETURN collect({id: o.id, content: o.content, valid_at: first.created_at}) AS redated
}
RETURN [m IN gone | m {.id, .session, .seq}] AS deleted, orphaned, redated
