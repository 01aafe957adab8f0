// Content plus the scope's hash, so a query can require `scope_key:<key>` and Lucene itself
// restricts the hits to one scope (instead of filtering the global top hits afterwards).
// English analyzer: stop words dropped, words stemmed (as message_text).
CREATE FULLTEXT INDEX observation_text IF NOT EXISTS
FOR (o:Observation) ON EACH [o.content, o.scope_key]
OPTIONS {indexConfig: {`fulltext.analyzer`: 'english'}}
