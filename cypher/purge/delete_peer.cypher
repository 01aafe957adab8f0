// Hard-deletes a peer with its memberships, sub-peer links and representation edges, and the
// work units whose keys name it (derive/<workspace>/<session>/<peer>, dream/<workspace>/
// <observer>/<observed>: reasoners/queue/schedule.py, reasoners/dreamer/scheduling.py) once no
// job is left in them (a purge deletes the peer's jobs first): a purged peer's name stayed in
// the graph there. Each branch seeks the key index by its workspace prefix. Each unit is
// locked before its jobs are looked at, so a job enqueued meanwhile either shows or waits and
// then makes its unit again.
MATCH (p:Peer {workspace: $workspace, name: $peer})
CALL (p) {
  CALL () {
    MATCH (u:WorkUnit)
    WHERE u.key STARTS WITH 'derive/' + $workspace + '/' AND u.key ENDS WITH '/' + $peer
    RETURN u
    UNION
    MATCH (u:WorkUnit)
    WHERE u.key STARTS WITH 'dream/' + $workspace + '/'
      AND (u.key STARTS WITH 'dream/' + $workspace + '/' + $peer + '/'
           OR u.key ENDS WITH '/' + $peer)
    RETURN u
  }
  SET u.purge_lock = true
  REMOVE u.purge_lock
  WITH u
  WHERE NOT EXISTS { MATCH (:Job {work_unit: u.key}) }
  DETACH DELETE u
}
DETACH DELETE p
RETURN count(*) AS deleted
