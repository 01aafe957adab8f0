"""The embedding model and its tokenizer (all-MiniLM-L6-v2, shipped offline)."""
