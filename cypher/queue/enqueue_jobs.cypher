// Jobs get their order inside the unit from the unit's counter. One row per unit, its jobs in
// order: a counter bumped once per job read the same final value for every job of a batch (the
// planner puts the bumps before the creates), so a batch's jobs tied. Reading the counter in
// the SET takes the unit's lock first, so concurrent enqueues of one unit are ordered.
UNWIND $units AS unit
MERGE (u:WorkUnit {key: unit.key})
ON CREATE SET u.workspace = unit.workspace, u.next_seq = 0
SET u.next_seq = u.next_seq + size(unit.jobs)
WITH unit, u.next_seq - size(unit.jobs) AS base
UNWIND range(0, size(unit.jobs) - 1) AS i
CREATE (j:Job)
SET j = unit.jobs[i], j.seq = base + i + 1
RETURN j.id AS id, j.seq AS seq
