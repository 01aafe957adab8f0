// A derivation whose view took other writes between its duplicate probe and its own write
// compares its new beliefs with those writes' beliefs only: each explicit belief carries the
// number of the view's write that put it there (view_write), so they are a range in this index.
CREATE INDEX observation_key_write IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.view_write)
