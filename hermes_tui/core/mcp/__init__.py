"""MCP servers as tool sources, through the official `mcp` SDK (never a protocol of our own).

- `config`: the `mcp_servers` setting (Hermes's keys) checked once into `ServerConfig`s.
- `naming`: `mcp__<server>__<tool>`, Hermes's tool names.
- `client`: one server's connection — a task owning the SDK's transport and session, retries
  with backoff, stderr to `<home>/logs/mcp-<name>.log`.
- `results`: a call's answer as the tool result the model reads (text, images, resources,
  errors), untrusted and wrapped as Hermes wraps it.
- `tools`: `McpTool`, a server's tool in our registry, asked about like the shell.
- `manager`: every server of an agent: start in the background, register, reload, close.

Nothing here imports the SDK at module level: `client.load_sdk` imports it in a worker thread
when the first server connects, so an agent without MCP servers never loads it.
"""
