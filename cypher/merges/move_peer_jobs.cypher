// The source peer's jobs, as it goes: waiting derive jobs now derive for the target (their
// messages moved); waiting dreams of its representations are dropped (the merge schedules the
// target's); its finished jobs are deleted, so its name does not stay in the queue's history
// (and, once the jobs it holds are gone, in a work unit's key: delete_peer.cypher).
CALL () {
  MATCH (j:Job {workspace: $workspace, peer: $source})
  WHERE j.status IN ['pending', 'dead'] AND j.kind <> 'dream'
  SET j.peer = $target
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
