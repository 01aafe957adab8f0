"""What the app serves to browsers: GraphiQL and its assets, the Neo4j Browser guide."""
