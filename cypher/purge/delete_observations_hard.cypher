// Hard-deletes beliefs with their edges (DERIVED_FROM, SUPERSEDES).
MATCH (o:Observation {workspace: $workspace})
WHERE o.id IN $ids
DETACH DELETE o
RETURN count(*) AS deleted
