// Every node that names the workspace, whatever its label (a full scan: checks and tests only).
MATCH (n)
WHERE n.workspace = $workspace
RETURN count(n) AS total
