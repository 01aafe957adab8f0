CREATE FULLTEXT INDEX message_content IF NOT EXISTS
FOR (m:Message) ON EACH [m.content]
