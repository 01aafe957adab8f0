CREATE INDEX observation_workspace IF NOT EXISTS
FOR (o:Observation) ON (o.workspace)
