CREATE CONSTRAINT message_client_id IF NOT EXISTS
FOR (m:Message) REQUIRE (m.workspace, m.client_id) IS UNIQUE
