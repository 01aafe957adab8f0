// Labels the per-representation vector indexes of an earlier layout put on beliefs.
CALL db.labels() YIELD label
WHERE label STARTS WITH 'ObsScope_'
RETURN label
