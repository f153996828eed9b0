"""Agent tools: a registry plus one module per tool family."""
