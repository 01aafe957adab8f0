// An index's id: a dropped and recreated index gets a new one.
SHOW INDEXES YIELD name, id
WHERE name = $name
RETURN id
