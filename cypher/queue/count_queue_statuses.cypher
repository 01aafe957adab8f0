// The jobs of many scopes (a workspace, or a session or peer in it) counted by status in one
// look: the queueStatus streams of a process share it. `found_*`: whether the workspace and the
// session and peer named exist (the zeros of names that do not would read as a drained queue);
// a workspace being deleted counts as gone. A running job whose unit's lease ran out (its
// worker died) counts as pending: no worker runs it, and the next to claim the unit will.
UNWIND $scopes AS sc
OPTIONAL MATCH (w:Workspace {name: sc.workspace})
OPTIONAL MATCH (s:Session {workspace: sc.workspace, name: sc.session})
OPTIONAL MATCH (p:Peer {workspace: sc.workspace, name: sc.peer})
CALL (sc) {
  // Every job has a status: the (workspace, status) index serves the lookup (a label scan of
  // every tenant's jobs without it).
  OPTIONAL MATCH (j:Job {workspace: sc.workspace})
  WHERE j.status IS NOT NULL
    AND (sc.session IS NULL OR j.session = sc.session) AND (sc.peer IS NULL OR j.peer = sc.peer)
  WITH j, CASE WHEN j.status = 'running'
                 AND NOT EXISTS { MATCH (u:WorkUnit {key: j.work_unit})
                                  WHERE u.lease_until >= $now }
               THEN 'pending' ELSE j.status END AS status
  WITH status, count(j) AS jobs, sum(j.tokens_in) AS tokens_in,
       sum(j.tokens_out) AS tokens_out
  RETURN collect(CASE WHEN status IS NULL THEN null
                      ELSE {status: status, jobs: jobs, tokens_in: tokens_in,
                            tokens_out: tokens_out} END) AS counts
}
RETURN sc.workspace AS workspace, sc.session AS session, sc.peer AS peer,
       w IS NOT NULL AND w.deleting_at IS NULL AS found_workspace,
       sc.session IS NULL OR s IS NOT NULL AS found_session,
       sc.peer IS NULL OR p IS NOT NULL AS found_peer, counts
