"""Textual screens: the main screen and modal/secondary screens."""
