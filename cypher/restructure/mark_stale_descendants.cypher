// Staleness propagation: every belief derived, directly or through other beliefs, from the
// roots ($root_ids) is marked stale with $reason and left for the next dream to reconcile.
// The walk follows incoming DERIVED_FROM edges from Observation to Observation only, up to 64
// derivation levels (deeper chains are not written: a dream derives one level at a time from
// current premises). `WITH DISTINCT d` lets the planner expand breadth-first with a visited set
// (pruning var-length expand), so the cost grows with the descendants reached, never with the
// size of the graph or the number of paths to a node. Deleted descendants are skipped, already
// stale ones keep their first reason. The roots themselves are left as they are.
// Every belief reached counts one more invalidation (stale_version), already stale ones too: a
// dream that read one before this change finds the count moved and leaves its verdict out
// (reconcile_beliefs.cypher), so a belief is never kept on grounds that have just gone.
MATCH (root:Observation)
WHERE root.id IN $root_ids AND root.workspace = $workspace
MATCH (root)<-[:DERIVED_FROM*1..64]-(d:Observation)
WITH DISTINCT d
// A root that descends from another root is a root too, and so are $other_roots (the same
// change's, marked with another reason): a pruned one marked pending would be judged again,
// and kept, by the next reconciliation.
WHERE d.workspace = $workspace AND d.deleted_at IS NULL AND NOT d.id IN $root_ids
  AND NOT d.id IN $other_roots
WITH d, coalesce(d.stale, false) AS was_stale
SET d.stale = true, d.reconcile_pending = true,
    d.stale_version = coalesce(d.stale_version, 0) + 1,
    d.stale_reason = CASE WHEN was_stale THEN d.stale_reason ELSE $reason END,
    d.stale_at = CASE WHEN was_stale THEN d.stale_at ELSE $now END
// One row per representation: streaming a row per belief costs more than the marking itself.
WITH d.observer AS observer, d.observed AS observed, collect(d.id) AS ids
RETURN observer, observed, ids
