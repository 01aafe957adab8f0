MATCH (p:Peer {workspace: $workspace})
WHERE ($after IS NULL OR p.name > $after)
  AND all(kv IN $meta_kv WHERE kv IN p.meta_kv)
RETURN p {.*} AS peer
ORDER BY p.name
LIMIT $limit
