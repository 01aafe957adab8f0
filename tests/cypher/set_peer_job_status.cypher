// Sets the status of a peer's jobs (tests only).
MATCH (j:Job {workspace: $workspace, peer: $peer})
SET j.status = $status
RETURN count(j) AS changed
