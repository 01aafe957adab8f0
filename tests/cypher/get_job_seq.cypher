// A job's place in its unit (tests only).
MATCH (j:Job {id: $id})
RETURN j.seq AS seq
