// Reads every message's properties that searches read: those a vector search checks on its
// candidates after the index (cypher/search/search_messages_vector.cypher), and the vectors
// that the exact scan of a small session and passage scoring compare. A restarted server then
// has them in its page cache before the first searches need them. Reads only.
MATCH (m:Message)
RETURN count(m.deleted_at) + count(m.peer) + count(m.created_at) + count(m.meta_kv)
       + sum(size(m.embedding)) + sum(size(m.passage_embeddings)) AS read, count(m) AS messages
