"""Reasoning: LLM providers, embeddings, deriver, dreamer, dialectic, context packer."""
