// What a finishing purge still has to do (note_purge_followups.cypher).
MATCH (r:Purge {id: $id})
RETURN [m IN coalesce(r.rederive, []) WHERE NOT m IN coalesce(r.rederive_blocked, [])]
         AS rederive,
       coalesce(r.card_views, []) AS card_views
