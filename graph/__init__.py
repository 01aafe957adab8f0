"""Neo4j layer: settings, driver, managed server, schema and repositories."""
