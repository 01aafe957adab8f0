// A purge that finished (or found nothing left to erase) deletes its record.
MATCH (r:Purge {id: $id})
DELETE r
RETURN count(*) AS deleted
