"""The deriver: explicit observations about a peer, extracted from its messages, grounded."""
