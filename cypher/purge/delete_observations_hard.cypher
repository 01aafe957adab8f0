// Hard-deletes beliefs with their edges (DERIVED_FROM, SUPERSEDES), counted by level. The
// caller deletes dependents before their premises, so no remaining belief loses a premise.
MATCH (o:Observation {workspace: $workspace})
WHERE o.id IN $ids
WITH o, o.level AS level
DETACH DELETE o
RETURN level, count(*) AS deleted
