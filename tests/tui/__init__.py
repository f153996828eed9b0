"""Tests of the TUI widgets and screens (Pilot behaviour tests and SVG snapshots)."""
