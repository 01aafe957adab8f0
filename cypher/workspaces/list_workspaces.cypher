// Names are never empty: `> ''` lets the name index find and order them (a label scan of every
// workspace and a sort without it).
MATCH (w:Workspace)
WHERE w.name > coalesce($after, '')
RETURN w {.*} AS workspace
ORDER BY w.name
LIMIT $limit
