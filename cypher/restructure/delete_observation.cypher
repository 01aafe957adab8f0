// Tombstones a belief (deleted_at): it leaves every read, and the deriver's duplicate probe
// still sees it, so the same fact is not written again. `problem` is 'not_found' when there
// is no such belief; deleting a deleted belief changes nothing.
OPTIONAL MATCH (o:Observation {id: $id, workspace: $workspace})
WITH o, CASE WHEN o IS NULL THEN 'not_found' END AS problem
OPTIONAL CALL (o, problem) {
  WITH o WHERE problem IS NULL AND o.deleted_at IS NULL
  SET o.deleted_at = $now, o.reconcile_pending = null
  RETURN true AS changed
}
RETURN problem, coalesce(changed, false) AS changed, o {.id, .observer, .observed} AS observation
