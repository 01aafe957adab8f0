// message_text as layout 3 had it: the default analyzer (stop words kept, no stemming) and no
// sender field.
CREATE FULLTEXT INDEX message_text IF NOT EXISTS
FOR (m:Message) ON EACH [m.content, m.workspace_key, m.session_key, m.peer_key]
