// Reconciliation reads a representation's beliefs left stale by an invalidation: they carry
// reconcile_pending = true until a dream has judged them, so this index holds only them.
CREATE INDEX observation_key_reconcile IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.reconcile_pending)
