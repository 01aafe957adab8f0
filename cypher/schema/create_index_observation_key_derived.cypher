// A representation's most-derived beliefs, newest first among equals, in index order (see
// observation_scope_recent).
CREATE INDEX observation_key_derived IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.times_derived, o.created_at)
