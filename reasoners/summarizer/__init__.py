"""The summarizer: short and long session summaries (by an LLM, or extractively)."""
