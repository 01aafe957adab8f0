// Chunk text plus the peer's key, so a query can require its peers (`+peer_key:<key>`) and
// Lucene itself keeps the hits within them. English analyzer, as message_text.
CREATE FULLTEXT INDEX file_chunk_text IF NOT EXISTS
FOR (c:FileChunk) ON EACH [c.content, c.peer_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
