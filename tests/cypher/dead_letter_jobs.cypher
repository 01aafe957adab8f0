// Dead-letters every pending job of a workspace, as spent attempts would (tests only).
MATCH (j:Job {workspace: $workspace, status: 'pending'})
SET j.status = 'dead', j.error = $error
RETURN count(j) AS dead
