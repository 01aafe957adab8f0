// A dream's last write, in its transaction, and its one write of the representation's OBSERVES
// edge. The beliefs it read lose their pending mark and recorded neighbours, and keep the keys
// later dreams find them by. The edge counts the $created beliefs the dream wrote; its counters
// move on (beliefs that arrived meanwhile still count); its claim on a dream is released, or
// passed to a follow-up dream when $more_waiting (the batch left beliefs unread) or when at
// least $threshold (0: never) beliefs still wait, unless another dream already waits or runs;
// and the run is recorded with the representation's next run number (subscribers read runs in
// that order). `claimed` names the follow-up's job, for the caller to enqueue, or is null.
// One SET: a property read on its right-hand side makes Cypher lock the edge before reading it,
// so a derivation's concurrent count is never lost; a second write of the edge in the same
// transaction, while a derivation waits for it, is what Neo4j reports as a deadlock. The items
// are in the order that has each read the counters as they were before this SET.
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
WITH r, randomUUID() AS fresh
SET r.idle_dream_at = CASE
      WHEN coalesce(r.since_dream, 0) > $consumed THEN coalesce(r.idle_dream_at, $idle_at)
    END,
    r.dream_job = CASE
      WHEN NOT r.dream_job IN $job_ids
           AND EXISTS { MATCH (j:Job {id: r.dream_job}) WHERE j.status IN ['pending', 'running'] }
        THEN r.dream_job
      WHEN $more_waiting
           OR ($threshold > 0 AND coalesce(r.since_dream, 0) - $consumed >= $threshold)
        THEN fresh
      WHEN r.dream_job IN $job_ids THEN null
      ELSE r.dream_job
    END,
    r.since_dream = CASE
      WHEN coalesce(r.since_dream, 0) > $consumed THEN r.since_dream - $consumed ELSE 0
    END,
    r.observations = coalesce(r.observations, 0) + $created,
    r.last_dream_at = $now,
    r.dream_runs = coalesce(r.dream_runs, 0) + 1
WITH r, fresh
CALL (r) {
  UNWIND $processed AS p
  MATCH (o:Observation {id: p.id, workspace: $workspace})
  REMOVE o.dream_pending, o.near_ids, o.near_similarities
  SET o.slot = p.slot, o.claim_key = p.claim
  RETURN count(o) AS processed
}
CREATE (d:DreamRun)
SET d = $run, d.seq = r.dream_runs
RETURN d.seq AS seq, r.since_dream AS remaining,
       CASE WHEN r.dream_job = fresh THEN fresh END AS claimed
