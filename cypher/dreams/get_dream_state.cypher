// A representation's dream count and peer card (its OBSERVES edge).
MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
RETURN coalesce(r.dream_runs, 0) AS dream_runs,
       coalesce(r.card, []) AS card, coalesce(r.card_support, []) AS card_support
