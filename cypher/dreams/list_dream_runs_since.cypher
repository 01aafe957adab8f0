// A representation's dream runs after run number $after, in the order they committed.
MATCH (d:DreamRun {workspace: $workspace, observer: $observer, observed: $observed})
WHERE d.seq > $after
RETURN d {.*} AS run
ORDER BY d.seq
LIMIT $limit
