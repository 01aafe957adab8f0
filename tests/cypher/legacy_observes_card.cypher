MATCH (:Peer {workspace: $workspace, name: $observer})
      -[r:OBSERVES]->(:Peer {workspace: $workspace, name: $observed})
RETURN r.card AS card, r.card_support AS card_support, r.card_updated_at AS updated_at
