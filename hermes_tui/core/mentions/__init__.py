"""@-mentions in a prompt: `@path` attaches a file of the working folder, `@session:REF` quotes a session.

`tokens` finds the mentions in a text and the one being typed at the cursor; `files` lists the
working folder's files (the project's ignore rules respected, bounded) and ranks them for a partial
`@pa` (or lists a folder for `@dir/`); `sessions` offers session titles and quotes a session's last
answer; `attach` turns a prompt into the message the model reads — each mentioned file's content in
a delimited block, images as image parts when the model takes them, a note for what is refused.
The front-ends only call `attach.expand_mentions` (the agent does, for every turn) and the
completion helpers; nothing here imports a UI.
"""
