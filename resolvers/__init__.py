"""API surfaces: GraphQL schema, Honcho-compatible REST routes, the Starlette app, and the CLI."""
