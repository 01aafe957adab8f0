SHOW INDEXES
YIELD name, type, state, populationPercent
RETURN name, type, state, populationPercent
