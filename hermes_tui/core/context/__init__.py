"""The context engine: token accounting, compression, summary prompts, secret redaction."""
