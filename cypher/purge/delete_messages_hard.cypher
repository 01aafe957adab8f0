// Hard-deletes messages with their edges.
MATCH (m:Message {workspace: $workspace})
WHERE m.id IN $ids
DETACH DELETE m
RETURN count(*) AS deleted
