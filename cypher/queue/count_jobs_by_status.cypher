MATCH (j:Job {workspace: $workspace})
WHERE ($session IS NULL OR j.session = $session)
  AND ($peer IS NULL OR j.peer = $peer)
RETURN j.status AS status, count(*) AS jobs, sum(j.tokens_in) AS tokens_in,
       sum(j.tokens_out) AS tokens_out
