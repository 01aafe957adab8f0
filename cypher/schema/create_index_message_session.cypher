CREATE INDEX message_session IF NOT EXISTS
FOR (m:Message) ON (m.workspace, m.session)
