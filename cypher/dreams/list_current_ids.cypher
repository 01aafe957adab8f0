// Which of $ids are current beliefs of the representation ($scope), of any level: a card line
// citing another (deleted, dropped, superseded or stale since) no longer rests on it.
UNWIND $ids AS id
MATCH (o:Observation {id: id, workspace: $workspace})
WHERE o.scope_key = $scope
  AND o.deleted_at IS NULL AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
RETURN o.id AS id
