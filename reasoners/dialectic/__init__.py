"""The dialectic: answers questions about a peer from one observer's view, with citations."""
