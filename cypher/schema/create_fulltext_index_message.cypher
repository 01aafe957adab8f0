// Content plus one term each for the message's workspace, session and peer, so a query can
// require them (`+session_key:<key>`) and Lucene itself keeps the hits in scope.
CREATE FULLTEXT INDEX message_text IF NOT EXISTS
FOR (m:Message) ON EACH [m.content, m.workspace_key, m.session_key, m.peer_key]
