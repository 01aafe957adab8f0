// A representation's beliefs, by scope_key (one or several keys): the exact scan of a small
// representation reads through it (statements name it in a hint: the workspace index would
// also match, and seek every belief of the workspace).
CREATE INDEX observation_key IF NOT EXISTS
FOR (o:Observation) ON (o.scope_key)
