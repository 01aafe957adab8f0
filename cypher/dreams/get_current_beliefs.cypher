// The current explicit beliefs of a representation among $ids (the neighbours the deriver
// recorded for new facts), by id: a dream's comparison of new facts with what it knew costs
// one lookup per neighbour instead of a vector search per fact.
UNWIND $ids AS id
MATCH (o:Observation {id: id, workspace: $workspace})
WHERE o.scope_key = $scope AND o.level = 'explicit'
  AND o.deleted_at IS NULL AND o.superseded_at IS NULL AND NOT coalesce(o.stale, false)
RETURN o {.id, .content, .level, .valid_at, .created_at, .session} AS observation
