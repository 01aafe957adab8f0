// One batch of removing such a label.
MATCH (o:$($label))
WITH o LIMIT $batch
REMOVE o:$($label)
RETURN count(o) AS removed
