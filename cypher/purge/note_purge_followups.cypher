// What a purge does once it has erased everything, noted on its record in the transaction that
// makes it due, so an interrupted purge keeps it: the live messages an erased belief was also
// taken from (derived again) and the representations, "observer/observed", whose cards went
// (dreamed again), and the summaries it deleted, "session/kind/up_to" (written again). Done
// only at the end, so none runs while the purge still deletes: a message derived between two
// batches met a belief the next batch erased, and a dream run committed meanwhile was taken
// for one quoting the purged data.
MATCH (r:Purge {id: $id})
WITH r, coalesce(r.rederive, []) AS messages, coalesce(r.card_views, []) AS views,
     coalesce(r.summaries, []) AS summaries
SET r.rederive = messages + [m IN $messages WHERE NOT m IN messages],
    r.card_views = views + [v IN $views WHERE NOT v IN views],
    r.summaries = summaries + [s IN $summaries WHERE NOT s IN summaries]
RETURN r.id AS id
