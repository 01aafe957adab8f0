// Workspaces whose deletion mark was not renewed since $cutoff: a deletion cut short (its
// process died). Workspace nodes only, one per tenant: a worker looks every half minute.
MATCH (w:Workspace)
WHERE w.deleting_at IS NOT NULL AND w.deleting_at < $cutoff
  AND ($workspace IS NULL OR w.name = $workspace)
RETURN w.name AS name
ORDER BY w.deleting_at
LIMIT $limit
