// A representation's dream counters (tests only).
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
RETURN coalesce(r.since_dream, 0) AS since_dream, r.idle_dream_at AS idle_dream_at
