"""Agent tools: the Tool base, the registry, the default set, and one module per tool family.

Imports point one way: tool modules and `registry` import `base`; `defaults` imports the tool
modules and `registry`; `base` imports no tool module. So the package has no import cycle.
"""
