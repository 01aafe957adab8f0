CREATE INDEX message_peer IF NOT EXISTS
FOR (m:Message) ON (m.workspace, m.peer)
