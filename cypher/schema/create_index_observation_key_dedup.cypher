// A merge checks the beliefs it moved against their new representation: they carry
// dedup_pending = true until then, so this index holds only them.
CREATE INDEX observation_key_dedup IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.dedup_pending)
