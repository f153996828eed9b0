"""The App's parts: each owns one thing and sees the app only through its Protocol in `ports.py`.

`turn_control` (the turn and command workers, the queue, the busy rule), `presenter` (core events
-> the main screen's widgets), `sessions_tree` (the Sessions tree's reads and the ordered background
lane), `navigation` (search, compare, inspector, review diffs, Memory & Skills), `tree_actions` and
`message_actions` (what the Sessions tree's and the message cursor's keys ask for), `permissions`
(the approver, the mode badge, Shift+Tab) and `rewind_flow` (F6 / Esc Esc -> the rewind picker).
`hermes_tui.app` builds them; nothing here imports it.
"""
