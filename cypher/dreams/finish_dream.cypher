// A dream's last write, in its transaction. The beliefs it read lose their pending mark and
// recorded neighbours, and keep the keys later dreams find them by. The representation's edge
// counts the $created beliefs the dream wrote; its counters move on (beliefs that arrived
// meanwhile still count); its claim on a dream is released, or passed to a follow-up dream when
// $more_waiting (the batch left beliefs unread) or when at least $threshold (0: never) beliefs
// still wait, unless another dream already waits or runs; and the run is recorded with the
// representation's next run number (subscribers read runs in that order). `claimed` names the
// follow-up's job, for the caller to enqueue, or is null. A run that only reconciled
// ($dreamed false: dreams are off) does not pace the next threshold dream.
// The edge is locked before its counters are read: by the dream's first statement
// (lock_dream_view.cypher), else by the first SET here. The values are then computed from what
// was read and set as they are: a SET whose right-hand side reads the edge's own properties
// takes the edge's lock again, and doing so while a derivation waits for it is reported as a
// deadlock.
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
SET r.dream_lock = true
WITH r, randomUUID() AS fresh, coalesce(r.since_dream, 0) AS undreamed, r.dream_job AS held,
     r.idle_dream_at AS idle, coalesce(r.observations, 0) AS beliefs,
     coalesce(r.dream_runs, 0) + 1 AS seq, r.last_dream_at AS last
// The count loses what this dream read of what it counted (dream_counted): a belief a change
// made pending again (a value an update's reversal or a reinstatement brought back) was never
// counted, and taking it off lost one written while the dream ran, which no dream then came
// for. Beliefs the counter counted may have left the view since (moved by a merge, split or
// rename, erased by a purge): what still waits is at most the unread pending beliefs there are,
// or a threshold dream would read nothing and schedule the next, for ever.
WITH r, fresh, held, idle, beliefs, seq, last, undreamed,
     COUNT { MATCH (o:Observation)
             WHERE o.id IN $processed_ids AND o.workspace = $workspace
               AND o.dream_counted = true } AS consumed,
     COUNT { MATCH (o:Observation)
             USING INDEX o:Observation(scope_key, dream_pending)
             WHERE o.scope_key = $scope AND o.dream_pending = true
               AND o.workspace = $workspace AND NOT o.id IN $processed_ids } AS unread
WITH r, fresh, held, idle, beliefs, seq, last,
     CASE WHEN undreamed - consumed < unread
          THEN CASE WHEN undreamed > consumed THEN undreamed - consumed ELSE 0 END
          ELSE unread END AS remaining,
     held IS NOT NULL AND NOT held IN $job_ids
     AND EXISTS { MATCH (j:Job {id: held}) WHERE j.status IN ['pending', 'running'] } AS other
WITH r, fresh, held, idle, beliefs, seq, last, remaining,
     NOT other AND ($more_waiting OR ($threshold > 0 AND remaining >= $threshold)) AS follow
SET r.since_dream = remaining,
    r.idle_dream_at = CASE WHEN remaining > 0 THEN coalesce(idle, $idle_at) END,
    r.observations = beliefs + $created,
    r.last_dream_at = CASE WHEN $dreamed THEN $now ELSE last END,
    r.dream_runs = seq,
    r.dream_job = CASE WHEN follow THEN fresh WHEN held IN $job_ids THEN null ELSE held END
REMOVE r.dream_lock
WITH r, fresh, follow, seq, remaining, CASE WHEN $dreamed THEN $now ELSE last END AS paced
CALL (r) {
  UNWIND $processed AS p
  MATCH (o:Observation {id: p.id, workspace: $workspace})
  REMOVE o.dream_pending, o.dream_counted, o.near_ids, o.near_similarities
  SET o.slot = p.slot, o.claim_key = p.claim
  RETURN count(o) AS processed
}
CREATE (d:DreamRun)
SET d = $run, d.seq = seq
RETURN seq, remaining, CASE WHEN follow THEN fresh END AS claimed, paced
