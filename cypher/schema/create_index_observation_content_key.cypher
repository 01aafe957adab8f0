// Exact-text duplicate lookups within a scope (find_scope_duplicates_indexed).
CREATE INDEX observation_content_key IF NOT EXISTS
FOR (o:Observation) ON (o.workspace, o.observer, o.observed, o.content_key)
