// One batch of the backfill: the scope's beliefs without a scope_key get it.
MATCH (o:Observation {workspace: $workspace, observer: $observer, observed: $observed})
WHERE o.scope_key IS NULL
WITH o LIMIT $batch
SET o.scope_key = $scope_key
RETURN count(o) AS updated
