// Deleting a workspace (and creating one, which clears a former one's leftovers) finds its
// nodes label by label: without this, each lookup scanned every tenant's nodes of the label.
CREATE INDEX work_unit_workspace IF NOT EXISTS
FOR (u:WorkUnit) ON (u.workspace)
