// Applies reconciliation verdicts to beliefs still awaiting it; one invalidated again since the
// dream read it (its stale_version moved on from the verdict's `version`) or changed otherwise
// is left out, for the dream the new invalidation scheduled, and so is one superseded since
// (a verdict read on the current version never rewrites history). keep: no longer stale (current
// again, or for a superseded version, sound history); update: the same with new content; drop:
// tombstoned (deleted_at). With `relink`, a kept or updated belief also cites the current
// replacement of each premise that a correction superseded, so its provenance reaches today's
// evidence. A kept or updated belief stops citing the `unlink` messages whose span is still the
// one read (an edit took it out of their text; a derivation since may have quoted the new
// text), if a live message outside them still backs it (a purge since may have taken the
// others), counts each such message once less in times_derived (at least 1), and takes its
// session and time from one message left (its words too, with `redate`, only then): an edited
// message derived again adds itself back if its new text still says it. `unlinked`: whether
// the belief stopped citing one (a knowledge update that message made may be reversed);
// `belief`: it as written, for the run's events.
UNWIND $verdicts AS v
MATCH (o:Observation {id: v.id, workspace: $workspace})
WHERE o.scope_key = $scope AND o.reconcile_pending = true AND o.deleted_at IS NULL
  AND coalesce(o.stale_version, 0) = v.version
  AND (o.superseded_at IS NOT NULL) = v.superseded
WITH o, v, v.action = 'drop' AS dropped
SET o.reconcile_pending = null,
    o.stale = CASE WHEN dropped THEN o.stale ELSE false END,
    o.stale_reason = CASE WHEN dropped THEN o.stale_reason ELSE null END,
    o.deleted_at = CASE WHEN dropped THEN $now ELSE null END,
    o.content = CASE WHEN v.redate THEN o.content ELSE coalesce(v.content, o.content) END,
    o.content_key = CASE WHEN v.redate THEN o.content_key
                         ELSE coalesce(v.content_key, o.content_key) END,
    o.embedding = CASE WHEN v.redate THEN o.embedding ELSE coalesce(v.embedding, o.embedding) END
WITH o, v, dropped
OPTIONAL CALL (o, v, dropped) {
  WITH o WHERE NOT dropped AND v.relink
  MATCH (o)-[:DERIVED_FROM]->(p:Observation)<-[:SUPERSEDES {origin: 'correction'}]-(n:Observation)
  WHERE p.workspace = $workspace AND n.workspace = $workspace AND n.scope_key = $scope
    AND n.deleted_at IS NULL AND n.superseded_at IS NULL AND NOT coalesce(n.stale, false)
  MERGE (o)-[:DERIVED_FROM]->(n)
  RETURN count(*) AS relinked
}
OPTIONAL CALL (o, v, dropped) {
  WITH o WHERE NOT dropped AND size(v.unlink) > 0
    AND EXISTS {
      MATCH (o)-[:DERIVED_FROM]->(k:Message {workspace: $workspace})
      WHERE k.deleted_at IS NULL AND NOT k.id IN [u IN v.unlink | u.id]
    }
  UNWIND v.unlink AS u
  // A message deleted since the dream read it was counted out by its deletion already.
  MATCH (o)-[d:DERIVED_FROM {span: u.span}]->(m:Message {workspace: $workspace, id: u.id})
  WHERE m.deleted_at IS NULL
  DELETE d
  WITH o, v, count(DISTINCT m) AS unlinked
  MATCH (o)-[:DERIVED_FROM]->(k:Message {workspace: $workspace})
  WHERE k.deleted_at IS NULL
  WITH o, v, unlinked, k
  ORDER BY k.created_at, k.id
  WITH o, v, unlinked, collect(k) AS left
  // The session and time of one message left: still its own if one matches both (as instants:
  // a time under the zone name UTC is not equal to the same one at offset Z), else the
  // earliest of its session, else the earliest.
  WITH o, v, unlinked,
       any(k IN left WHERE k.session = o.session
                           AND k.created_at.epochSeconds = o.valid_at.epochSeconds
                           AND k.created_at.nanosecond = o.valid_at.nanosecond) AS kept,
       coalesce([k IN left WHERE k.session = o.session][0], left[0]) AS first
  SET o.times_derived = CASE WHEN coalesce(o.times_derived, 1) - unlinked < 1 THEN 1
                             ELSE coalesce(o.times_derived, 1) - unlinked END,
      o.session = CASE WHEN kept THEN o.session ELSE first.session END,
      o.valid_at = CASE WHEN kept THEN o.valid_at ELSE first.created_at END,
      o.content = CASE WHEN v.redate THEN v.content ELSE o.content END,
      o.content_key = CASE WHEN v.redate THEN v.content_key ELSE o.content_key END,
      o.embedding = CASE WHEN v.redate THEN v.embedding ELSE o.embedding END
  RETURN unlinked
}
RETURN o.id AS id, v.action AS action, coalesce(unlinked, 0) > 0 AS unlinked,
       o {.id, .level, .content} AS belief
