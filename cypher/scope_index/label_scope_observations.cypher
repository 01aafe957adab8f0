// One batch of the scope's beliefs that lack the scope label; the caller repeats until short.
MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed})
WHERE NOT $label IN labels(o)
WITH o LIMIT $batch
SET o:$($label)
RETURN count(o) AS labelled
