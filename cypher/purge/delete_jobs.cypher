// Hard-deletes jobs.
MATCH (j:Job {workspace: $workspace})
WHERE j.id IN $ids
DETACH DELETE j
RETURN count(*) AS deleted
