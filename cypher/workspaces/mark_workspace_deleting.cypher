// A deletion under way, renewed with each batch: new sessions are refused, and the queue's
// counts of the workspace read as gone from here on (the jobs go in early batches, and their
// zeros would read as a drained queue). A mark not renewed for a while is a deletion cut
// short, which a worker finishes (find_lapsed_deletions).
MATCH (w:Workspace {name: $workspace})
SET w.deleting_at = $now
RETURN w.name AS name
