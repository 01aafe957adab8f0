// Content and the sender's peer name (so "what did Dana buy" finds Dana's own turns), plus one
// term each for the message's workspace, session and peer, so a query can require them
// (`+session_key:<key>`) and Lucene itself keeps the hits in scope. The English analyzer drops
// stop words ("what did I ...") and stems ("buys", "buying" ~ "buy").
CREATE FULLTEXT INDEX message_text IF NOT EXISTS
FOR (m:Message) ON EACH [m.content, m.peer, m.workspace_key, m.session_key, m.peer_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
