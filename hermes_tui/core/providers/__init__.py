"""LLM providers behind one streaming interface (see `base`)."""
