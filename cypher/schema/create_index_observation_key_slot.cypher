// The zero-key dreamer finds a representation's facts of one slot (where someone lives, their
// age...) by (scope_key, slot); only facts that fill a known slot carry the property.
CREATE INDEX observation_key_slot IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key, o.slot)
