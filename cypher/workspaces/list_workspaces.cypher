MATCH (w:Workspace)
WHERE $after IS NULL OR w.name > $after
RETURN w {.*} AS workspace
ORDER BY w.name
LIMIT $limit
