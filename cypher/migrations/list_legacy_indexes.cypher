// Indexes of earlier layouts: the named ones, and the per-representation vector indexes
// (observation_scope_<key>) that one index with filters replaces.
SHOW INDEXES
YIELD name, type
WHERE name IN $names OR (type = 'VECTOR' AND name STARTS WITH 'observation_scope_')
RETURN name
