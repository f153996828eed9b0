"""`python -m hermes_tui` — same entry point as the `hermes-tui` console script."""

from hermes_tui.cli import main

if __name__ == "__main__":
    raise SystemExit(main())
