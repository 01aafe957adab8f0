// The keys a dream stored on a belief (tests only).
MATCH (o:Observation {id: $id})
RETURN o.slot AS slot, o.claim_key AS claim
