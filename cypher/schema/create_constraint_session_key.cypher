CREATE CONSTRAINT session_key IF NOT EXISTS
FOR (s:Session) REQUIRE (s.workspace, s.name) IS UNIQUE
