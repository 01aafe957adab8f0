// The observer's card of the observed peer: the system-managed File of `observed` at $path.
// Each line's support is the space-separated ids of the observations it rests on ('' for a
// line the app wrote).
MATCH (f:File {workspace: $workspace, peer: $observed, path: $path})
WHERE f.managed_by = 'system' AND f.card_observer = $observer
RETURN f.card_entries AS card, f.card_support AS card_support, f.updated_at AS updated_at
