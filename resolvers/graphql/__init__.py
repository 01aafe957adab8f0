"""The GraphQL API: types, queries, mutations and the schema."""
