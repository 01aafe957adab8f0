"""Repository functions: each runs catalog statements and returns typed records."""
