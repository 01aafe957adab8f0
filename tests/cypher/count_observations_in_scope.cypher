MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed})
RETURN count(o) AS total
