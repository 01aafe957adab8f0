// A representation's beliefs by scope_key (one or several), and its most recent ones read in
// index order: a query that names scope_key and orders by (scope_key, valid_at) stops after
// the beliefs it returns instead of sorting the whole representation.
CREATE INDEX observation_key_recent IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.valid_at)
