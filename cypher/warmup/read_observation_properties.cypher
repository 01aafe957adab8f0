// Reads every belief's properties that searches read: those a vector search checks on its
// candidates after the index (cypher/search/search_observations_vector.cypher), and the vectors
// that the exact scan of a small representation compares. A restarted server then has them in
// its page cache before the first searches need them. Reads only.
MATCH (o:Observation)
RETURN count(o.deleted_at) + count(o.stale) + count(o.superseded_at) + count(o.created_at)
       + count(o.valid_at) + count(o.session) + count(o.level) + count(o.scope_key)
       + sum(size(o.embedding)) AS read, count(o) AS observations
