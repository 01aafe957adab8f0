// Exact-text duplicate lookups within a representation.
CREATE INDEX observation_key_content IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.content_key)
