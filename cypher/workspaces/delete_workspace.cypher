MATCH (w:Workspace {name: $workspace})
DETACH DELETE w
RETURN count(*) AS deleted
