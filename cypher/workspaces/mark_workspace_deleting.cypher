// A deletion under way: the queue's counts of the workspace read as gone from here on (the
// jobs go in early batches, and their zeros would read as a drained queue). $now null: a
// deletion that failed half-way clears its mark.
MATCH (w:Workspace {name: $workspace})
SET w.deleting_at = $now
RETURN w.name AS name
