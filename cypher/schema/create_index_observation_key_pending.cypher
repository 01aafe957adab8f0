// A dream reads the beliefs no dream has read yet: new ones carry dream_pending = true until
// then, so this index holds only them.
CREATE INDEX observation_key_pending IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.dream_pending)
