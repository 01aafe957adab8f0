CREATE FULLTEXT INDEX observation_content IF NOT EXISTS
FOR (o:Observation) ON EACH [o.content]
