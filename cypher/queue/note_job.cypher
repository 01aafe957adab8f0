// Notes a job leaves for the app, written in the transaction of its work (a merge's sub-peer
// links it could not move): kept with the job, read through `jobs`.
MATCH (j:Job {id: $id})
SET j.notes = coalesce(j.notes, []) + $notes
RETURN count(j) AS noted
