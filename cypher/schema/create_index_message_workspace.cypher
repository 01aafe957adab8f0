CREATE INDEX message_workspace IF NOT EXISTS
FOR (m:Message) ON (m.workspace)
