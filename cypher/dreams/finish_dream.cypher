// A dream's last write, in its transaction. The beliefs it read lose their pending mark and
// recorded neighbours, and keep the keys later dreams find them by; the representation's counters move on (beliefs that
// arrived meanwhile still count), its claim on a dream is released, and the run is recorded
// with the representation's next run number (subscribers read runs in that order). The edge
// is locked (the first SET) before its counters are read.
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
SET r.dream_lock = true
REMOVE r.dream_lock
WITH r
SET r.since_dream = CASE
      WHEN coalesce(r.since_dream, 0) > $consumed THEN r.since_dream - $consumed ELSE 0
    END,
    r.last_dream_at = $now,
    r.dream_runs = coalesce(r.dream_runs, 0) + 1,
    r.dream_job = CASE WHEN r.dream_job IN $job_ids THEN null ELSE r.dream_job END
WITH r
SET r.idle_dream_at = CASE
  WHEN r.since_dream > 0 THEN coalesce(r.idle_dream_at, $idle_at) ELSE null
END
WITH r
CALL (r) {
  UNWIND $processed AS p
  MATCH (o:Observation {id: p.id, workspace: $workspace})
  REMOVE o.dream_pending, o.near_ids, o.near_similarities
  SET o.slot = p.slot, o.claim_key = p.claim
  RETURN count(o) AS processed
}
CREATE (d:DreamRun)
SET d = $run, d.seq = r.dream_runs
RETURN d.seq AS seq, r.since_dream AS remaining
