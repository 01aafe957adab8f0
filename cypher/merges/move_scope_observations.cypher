// Up to $batch beliefs move from the source peer's representations to the target's ($moves:
// old scope_key -> new observer, observed and scope_key, on which the search indexes filter).
// With $merge, a moved derived belief turns stale: it was reasoned from one peer's evidence
// and now stands among another's; the next dream reconciles it. A moved current explicit
// belief is marked dedup_pending: the merge (or rename) then checks it against its new
// representation, which a rename's new peer may have taken writes into while it ran; and
// `moved_by` $moved_by and the view it left (the operation, source and source view), so that
// it is not taken for a repeat of another belief moved from that view (those passed the dedup
// rule together already; the target's name written in both can bring two distinct facts
// closer than it). Beliefs from two views that become one are checked against each other.
// Returns how many moved, the moved explicit beliefs by their new representation, which
// count_merged_writes.cypher counts as a write of it, and the words of those now about another
// peer (the caller writes its name in them).
UNWIND $moves AS mv
CALL (mv) {
  MATCH (o:Observation)
  USING INDEX o:Observation(scope_key)
  WHERE o.scope_key = mv.from_scope AND o.workspace = $workspace
  RETURN o
  LIMIT $batch
}
WITH o, mv
LIMIT $batch
WITH o, mv,
     $merge AND o.level <> 'explicit' AND o.deleted_at IS NULL
       AND NOT coalesce(o.stale, false) AS invalidate,
     o.level = 'explicit' AND o.deleted_at IS NULL AND o.superseded_at IS NULL AS check
// Counted by the edge it left (dream_counted): the target's count never counted it, so its
// dream must not take it off (it lost beliefs written meanwhile from the count).
SET o.observer = mv.observer, o.observed = mv.observed, o.scope_key = mv.scope
REMOVE o.dream_counted
FOREACH (_ IN CASE WHEN check THEN [1] ELSE [] END |
  SET o.dedup_pending = true, o.moved_by = $moved_by + ' ' + mv.from_scope)
FOREACH (_ IN CASE WHEN invalidate THEN [1] ELSE [] END |
  SET o.stale = true, o.stale_reason = $reason, o.stale_at = $now, o.reconcile_pending = true)
RETURN count(o) AS moved,
       collect(CASE WHEN o.level = 'explicit'
                    THEN {id: o.id, observer: mv.observer, observed: mv.observed} END) AS explicit,
       collect(CASE WHEN mv.from_observed <> mv.observed AND o.deleted_at IS NULL
                    THEN {id: o.id, content: o.content, level: o.level} END) AS renamed
