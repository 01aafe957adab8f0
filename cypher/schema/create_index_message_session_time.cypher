// A session's messages in time order (list_session_messages.cypher): a page of a session in a
// large workspace read the workspace's messages in time order until it found the session's.
CREATE INDEX message_session_time IF NOT EXISTS
FOR (m:Message) ON (m.workspace, m.session, m.created_at)
