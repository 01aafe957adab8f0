// The jobs of many scopes (a workspace, or a session or peer in it) counted by status in one
// look: the queueStatus streams of a process share it. Each workspace's jobs are read once,
// grouped by status and by the sessions and peers the scopes name (others grouped as null), so
// a look costs a scan per workspace, not per scope: a key streaming many sessions' statuses
// made it one per stream. `found_*`: the workspace (a workspace being deleted counts as gone)
// and which of the sessions and peers named exist (the zeros of names that do not would read
// as a drained queue). A running job whose unit's lease ran out (its worker died) counts as
// pending: no worker runs it, and the next to claim the unit will.
UNWIND $workspaces AS ws
OPTIONAL MATCH (w:Workspace {name: ws.workspace})
CALL (ws) {
  // Every job has a status: the (workspace, status) index serves the lookup (a label scan of
  // every tenant's jobs without it).
  OPTIONAL MATCH (j:Job {workspace: ws.workspace})
  WHERE j.status IS NOT NULL
  WITH j, CASE WHEN j.session IN ws.sessions THEN j.session END AS session,
       CASE WHEN j.peer IN ws.peers THEN j.peer END AS peer,
       CASE WHEN j.status = 'running'
              AND NOT EXISTS { MATCH (u:WorkUnit {key: j.work_unit})
                               WHERE u.lease_until >= $now }
            THEN 'pending' ELSE j.status END AS status
  WITH session, peer, status, count(j) AS jobs, sum(j.tokens_in) AS tokens_in,
       sum(j.tokens_out) AS tokens_out
  RETURN collect(CASE WHEN status IS NULL THEN null
                      ELSE {session: session, peer: peer, status: status, jobs: jobs,
                            tokens_in: tokens_in, tokens_out: tokens_out} END) AS groups
}
CALL (ws) {
  UNWIND ws.sessions AS name
  OPTIONAL MATCH (s:Session {workspace: ws.workspace, name: name})
  RETURN collect(CASE WHEN s IS NULL THEN null ELSE name END) AS found_sessions
}
CALL (ws) {
  UNWIND ws.peers AS name
  OPTIONAL MATCH (p:Peer {workspace: ws.workspace, name: name})
  RETURN collect(CASE WHEN p IS NULL THEN null ELSE name END) AS found_peers
}
RETURN ws.workspace AS workspace, w IS NOT NULL AND w.deleting_at IS NULL AS found_workspace,
       coalesce(w.deleting_at IS NOT NULL, false) AS being_deleted,
       groups, found_sessions, found_peers
