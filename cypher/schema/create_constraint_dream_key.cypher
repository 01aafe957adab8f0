CREATE CONSTRAINT dream_key IF NOT EXISTS
FOR (d:Dream) REQUIRE (d.workspace, d.name) IS UNIQUE
