CREATE CONSTRAINT peer_key IF NOT EXISTS
FOR (p:Peer) REQUIRE (p.workspace, p.name) IS UNIQUE
