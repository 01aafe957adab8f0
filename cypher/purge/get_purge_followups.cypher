// What a finishing purge still has to do (note_purge_followups.cypher).
MATCH (r:Purge {id: $id})
RETURN coalesce(r.rederive, []) AS rederive, coalesce(r.card_views, []) AS card_views,
       coalesce(r.summaries, []) AS summaries
