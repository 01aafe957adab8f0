// Times as a graph written before layout 6 could hold them: a workspace's messages and
// beliefs keep their instant, written in the -05:00 offset.
MATCH (m:Message {workspace: $workspace})
SET m.created_at = datetime({datetime: m.created_at, timezone: '-05:00'})
WITH collect(m) AS messages
OPTIONAL MATCH (o:Observation {workspace: $workspace})
SET o.valid_at = datetime({datetime: o.valid_at, timezone: '-05:00'})
RETURN size(messages) AS messages, count(o) AS beliefs
