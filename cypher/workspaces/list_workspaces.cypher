// Names are never empty: `> ''` lets the name index find and order them (a label scan of every
// workspace and a sort without it). A workspace whose deletion began is gone, as to every
// request that names it.
MATCH (w:Workspace)
WHERE w.name > coalesce($after, '') AND w.deleting_at IS NULL
RETURN w {.*} AS workspace
ORDER BY w.name
LIMIT $limit
