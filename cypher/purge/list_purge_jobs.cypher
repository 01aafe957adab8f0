// The jobs that may carry purged data: those of the given sessions, the purged peer's own
// ($peer, null when only messages are purged) and the dreams of its representations (their
// work unit is dream/<workspace>/<observer>/<observed>), and the workspace's renames, merges
// and splits ($restructure_unit: a dead-lettered one naming the peer would hold the others it
// names for good); the caller picks from their payloads.
MATCH (j:Job {workspace: $workspace})
// Every job has a status: the (workspace, status) index serves the lookup.
WHERE j.status IS NOT NULL
  AND (j.session IN $sessions OR j.peer = $peer
       OR (j.kind = 'dream' AND (j.work_unit STARTS WITH $dream_prefix
                                 OR j.work_unit ENDS WITH $dream_suffix))
       OR j.work_unit = $restructure_unit)
RETURN j.id AS id, j.kind AS kind, j.peer AS peer, j.payload AS payload
