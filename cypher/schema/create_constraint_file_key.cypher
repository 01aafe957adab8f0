CREATE CONSTRAINT file_key IF NOT EXISTS
FOR (f:File) REQUIRE (f.workspace, f.peer, f.path) IS UNIQUE
