SHOW INDEXES
YIELD name, state
WHERE name = $name
RETURN name, state
