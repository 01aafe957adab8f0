// The source peer's jobs, as it goes: waiting derive jobs now derive for the target (their
// messages moved), in the target's unit of their session, after the jobs it holds (in their
// own order), so one unit derives each (session, peer) in order; waiting dreams of its
// representations are dropped (the merge schedules the target's); its finished jobs are
// deleted, so its name does not stay in the queue's history (and, once the jobs it holds are
// gone, in a work unit's key: delete_peer.cypher).
CALL () {
  MATCH (j:Job {workspace: $workspace, peer: $source})
  WHERE j.status IN ['pending', 'dead'] AND j.kind <> 'dream'
  WITH j, CASE WHEN j.kind = 'derive' AND j.session IS NOT NULL
               THEN 'derive/' + $workspace + '/' + j.session + '/' + $target
               ELSE j.work_unit END AS key
  ORDER BY j.seq
  WITH key, collect(j) AS moved
  MERGE (u:WorkUnit {key: key})
  ON CREATE SET u.workspace = $workspace, u.next_seq = 0
  SET u.next_seq = coalesce(u.next_seq, 0) + size(moved)
  WITH u, moved, u.next_seq - size(moved) AS base
  UNWIND range(0, size(moved) - 1) AS i
  WITH moved[i] AS j, u, base + i + 1 AS seq
  SET j.peer = $target, j.work_unit = u.key, j.seq = seq
  RETURN count(j) AS moved
}
CALL () {
  MATCH (j:Job {workspace: $workspace, kind: 'dream', status: 'pending'})
  WHERE j.work_unit STARTS WITH $dream_prefix OR j.work_unit ENDS WITH $dream_suffix
  DETACH DELETE j
  RETURN count(*) AS dropped
}
CALL () {
  MATCH (j:Job {workspace: $workspace, status: 'done'})
  WHERE j.peer = $source
     OR (j.kind = 'dream'
         AND (j.work_unit STARTS WITH $dream_prefix OR j.work_unit ENDS WITH $dream_suffix))
  DETACH DELETE j
  RETURN count(*) AS forgotten
}
RETURN moved, dropped, forgotten
