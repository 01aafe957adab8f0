CREATE INDEX summary_session IF NOT EXISTS
FOR (s:Summary) ON (s.workspace, s.session, s.kind)
