// One batch of messages, in id order after $after, with created_at moved to UTC (layout 6).
// Neo4j orders one instant written in two offsets apart, so a time bound must meet one zone.
MATCH (m:Message)
WHERE m.id > $after
WITH m ORDER BY m.id LIMIT $batch
WITH collect(m) AS batch
WITH batch, [m IN batch WHERE m.created_at.timezone <> 'Z'] AS moved
FOREACH (m IN moved | SET m.created_at = datetime({datetime: m.created_at, timezone: 'Z'}))
RETURN size(batch) AS seen, size(moved) AS moved, batch[-1].id AS last
