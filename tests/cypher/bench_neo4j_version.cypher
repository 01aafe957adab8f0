// Benchmark only: which Neo4j the numbers were measured on, for the report.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition
