"""The managed local Neo4j: where its files live, how it is configured, started, stopped."""
