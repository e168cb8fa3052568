"""`dealer serve`: the duplication-room console, a live web page over the same run code the CLI uses.

`app` builds the Starlette application; `runs` drives one dealing run at a time in a worker thread
through `dealer.dealing.run` / `dealer.plan.run`; `view` turns the run's progress events into blind
messages for `hub`, which hands them to every browser as server-sent events; `grid` reads each board's
state from the journal; `auth` guards every request; `director` unlocks the deals of finished runs.
Nothing here imports the web stack until the command runs (`dealer --help` stays light).
"""
