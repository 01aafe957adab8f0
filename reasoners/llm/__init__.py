"""The one LLM interface, by role, and its OpenAI-compatible adapter."""
