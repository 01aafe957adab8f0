// Deleting a workspace (and creating one, which clears a former one's leftovers) finds its
// nodes label by label: without this, each lookup scanned every tenant's nodes of the label.
CREATE INDEX dream_run_workspace IF NOT EXISTS
FOR (r:DreamRun) ON (r.workspace)
