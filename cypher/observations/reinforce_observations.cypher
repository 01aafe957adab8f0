// A repeated fact: count it again and keep the new evidence beside the old. A message derived
// again (after an edit, or after a purge erased a belief it also supported) keeps its edge with
// the span found in its current text, and is not counted a second time.
// Only explicit beliefs are repeated, so staleness here means their messages changed.
UNWIND $repeats AS item
MATCH (o:Observation {id: item.id, workspace: $workspace})
MATCH (m:Message {workspace: $workspace, id: item.message_id})
OPTIONAL MATCH (o)-[seen:DERIVED_FROM]->(m)
WITH o, m, item, seen IS NULL AS fresh
SET o.times_derived = coalesce(o.times_derived, 1) + CASE WHEN fresh THEN 1 ELSE 0 END
// A stale belief its own edited message states again (a typo fixed there, say) is grounded
// again: current, with no reconciliation left to wait for, which with dreams off never came.
// A dream that read it stale does not apply its verdict (reconcile_pending is gone). Stated
// by another message, it stays stale: its dream must still unlink the edited one.
WITH o, m, item, fresh
CALL (o, fresh) {
  WITH o WHERE coalesce(o.stale, false) AND NOT fresh
  SET o.stale = false, o.stale_reason = null, o.stale_at = null, o.reconcile_pending = null
}
MERGE (o)-[d:DERIVED_FROM]->(m)
SET d.span = item.span
// A belief is stated when its first message was: a repeat from an earlier message (derived
// after a later one, as two sessions' units may run) dates it, and places it in its session;
// of several repeats, the earliest, once per belief. History (a deleted or replaced belief)
// keeps its dates. `redated` rows: their words are the caller's to date anew.
WITH o, m
ORDER BY m.created_at, m.id
WITH o, collect(m)[0] AS first
WITH o, first, o.deleted_at IS NULL AND o.superseded_at IS NULL
               AND first.created_at < coalesce(o.valid_at, o.created_at) AS earlier
SET o.valid_at = CASE WHEN earlier THEN first.created_at ELSE o.valid_at END,
    o.session = CASE WHEN earlier THEN first.session ELSE o.session END
RETURN o.id AS id, o.content AS content, o.valid_at AS valid_at, earlier AS redated
