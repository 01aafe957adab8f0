// Messages of a workspace in time order (list_messages.cypher): a page reads from where the
// last one ended, not every message of the workspace, sorted, for each page.
CREATE INDEX message_workspace_time IF NOT EXISTS
FOR (m:Message) ON (m.workspace, m.created_at)
