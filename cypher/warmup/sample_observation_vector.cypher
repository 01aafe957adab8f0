// A stored belief's vector to warm up with, so that warm-up searches start where real ones do,
// near the data: the first belief of the representation (its scope key) among the $scan beliefs
// whose ids sort from $start on. Ids are random UUIDs, so a random $start draws a belief at
// random; the id index gives them in order, so at most $scan are looked at.
MATCH (o:Observation)
WHERE o.id >= $start
WITH o
ORDER BY o.id
LIMIT $scan
WITH o
WHERE o.scope_key = $key AND o.embedding IS NOT NULL
RETURN o.embedding AS embedding
LIMIT 1
