// Jobs get their order inside the unit from the unit's counter; taking the counter locks the
// unit node, so concurrent enqueues of one unit are ordered.
UNWIND $jobs AS job
MERGE (u:WorkUnit {key: job.work_unit})
ON CREATE SET u.workspace = job.workspace, u.next_seq = 0
SET u.next_seq = u.next_seq + 1
CREATE (j:Job)
SET j = job, j.seq = u.next_seq
RETURN j.id AS id, j.seq AS seq
