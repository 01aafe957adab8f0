"""API surfaces: the GraphQL schema, the Starlette app with auth and limits, and the CLI."""
