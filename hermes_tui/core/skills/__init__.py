"""Skills: reusable procedures the agent keeps under <home>/skills/[category/]name/SKILL.md.

`frontmatter` (reading and validating SKILL.md), `catalog` (finding skills on disk, the prompt's
skills index), `usage` (the `.usage.json` sidecar Hermes keeps: pinning and patch counts),
`manage` (create / edit / patch / delete / write_file / remove_file with Hermes's rules).
"""
