// A purge that failed in its process (an error, a cancelled request) gives up its record's
// lease at once, if it still holds it, so purging again takes the record over; a worker takes
// it up after $retry_after (null: at its next look).
MATCH (r:Purge {id: $id})
WHERE r.owner = $owner
SET r.lease_until = $now, r.retry_after = $retry_after
RETURN count(r) AS released
