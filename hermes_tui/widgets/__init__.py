"""Textual widgets: conversation, tool cards, lineage tree, token gauge, review log, prompt input."""
