"""getContext: a deterministic, token-budgeted context blob for the calling agent's prompt."""
