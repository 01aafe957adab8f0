// New words for beliefs, with their key and embedding: a deletion's dated anew
// (delete_messages.cypher: "(stated on ...)" names the date of a message left), or a rename's
// or merge's, which write the new peer's name. One changed again since (its content is no
// longer the one read) is left as it is.
UNWIND $items AS item
MATCH (o:Observation {id: item.id, workspace: $workspace})
WHERE o.content = item.was
SET o.content = item.content, o.content_key = item.content_key, o.embedding = item.embedding
// With `keys`, the slot and claim a dream stored (finish_dream.cypher) are read from the new
// words: a claim holds the peer's name. A belief no dream has read keeps none yet.
WITH o, item
WHERE coalesce(item.keys, false) AND (o.slot IS NOT NULL OR o.claim_key IS NOT NULL)
SET o.slot = item.slot, o.claim_key = item.claim
RETURN count(*) AS keyed
