// The work units among $keys that hold no job, deleted: each is locked before its jobs are
// looked at, so a job enqueued meanwhile either shows (and the unit stays) or its transaction,
// which waited for the lock and then found the unit deleted, fails transiently and runs again
// (graph/db.py write_tx), making the unit anew. A unit's counter orders only the jobs it holds,
// so a unit made again from 0 orders its new jobs as well.
UNWIND $keys AS key
MATCH (u:WorkUnit {key: key})
SET u.purge_lock = true
REMOVE u.purge_lock
WITH u
WHERE NOT EXISTS { MATCH (:Job {work_unit: u.key}) }
DETACH DELETE u
RETURN count(*) AS deleted
