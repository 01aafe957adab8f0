CREATE INDEX message_session_seq IF NOT EXISTS
FOR (m:Message) ON (m.workspace, m.session, m.seq)
