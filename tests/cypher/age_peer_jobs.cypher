// Makes a peer's jobs look as if they had been queued and last changed $at (tests only).
MATCH (j:Job {workspace: $workspace, peer: $peer})
SET j.created_at = $at, j.run_after = $at, j.updated_at = $at
RETURN count(j) AS aged
