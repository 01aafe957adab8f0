// The words of beliefs a deletion dated anew (delete_messages.cypher): "(stated on ...)" names
// the date of a message left, with the key and embedding of the new words. One changed again
// since (its content is no longer the one read) is left as it is.
UNWIND $items AS item
MATCH (o:Observation {id: item.id, workspace: $workspace})
WHERE o.content = item.was
SET o.content = item.content, o.content_key = item.content_key, o.embedding = item.embedding
RETURN count(o) AS reworded
