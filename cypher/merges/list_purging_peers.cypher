// Those of $names that a purge has begun erasing (marked by its record) and not finished.
MATCH (p:Peer {workspace: $workspace})
WHERE p.name IN $names AND p.purge_id IS NOT NULL
RETURN p.name AS name
ORDER BY name
