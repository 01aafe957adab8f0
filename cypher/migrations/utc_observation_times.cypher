// One batch of beliefs, in id order after $after, with valid_at moved to UTC (layout 6): a
// belief's valid_at is its message's created_at, which clients could send in any offset.
MATCH (o:Observation)
WHERE o.id > $after
WITH o ORDER BY o.id LIMIT $batch
WITH collect(o) AS batch
WITH batch, [o IN batch WHERE o.valid_at.timezone <> 'Z'] AS moved
FOREACH (o IN moved | SET o.valid_at = datetime({datetime: o.valid_at, timezone: 'Z'}))
RETURN size(batch) AS seen, size(moved) AS moved, batch[-1].id AS last
