CREATE INDEX observation_scope IF NOT EXISTS
FOR (o:Observation) ON (o.workspace, o.observer, o.observed)
