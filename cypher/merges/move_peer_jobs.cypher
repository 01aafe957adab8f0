// The source peer's waiting jobs: derive jobs now derive for the target (their messages moved);
// waiting dreams of its representations are dropped (the merge schedules the target's).
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
RETURN moved, dropped
