// A representation's dream runs, newest first, before run number $before (null: from the
// newest).
MATCH (d:DreamRun {workspace: $workspace, observer: $observer, observed: $observed})
WHERE $before IS NULL OR d.seq < $before
RETURN d {.*} AS run
ORDER BY d.seq DESC
LIMIT $limit
