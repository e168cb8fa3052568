"""The console's HTML pages: plain HTML and CSS, the live parts filled in by the scripts of ``static/``
(`layout`'s `script`).

No page holds a card except the director's board view (`director_page` with a board found), which the
app serves only to an unlocked director.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

NAV = (("/", "Room"), ("/start", "Start a run"), ("/report", "Report"), ("/director", "Director"))


def layout(title: str, active: str, body: str, script: str = "", styles: Sequence[str] = ()) -> str:
    """A whole page: head, the navigation, `body`; `script` a module of static/ to load; `styles` more
    stylesheets (their paths) after the console's own."""
    nav = "".join(f'<a href="{href}"{" class=active" if href == active else ""}>{escape(name)}</a>'
                  for href, name in NAV)
    tail = f'<script src="/static/{script}"></script>' if script else ""
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)} - dealer</title>"
            f'<link rel="stylesheet" href="/static/style.css">'
            + "".join(f'<link rel="stylesheet" href="{escape(href, quote=True)}">' for href in styles)
            + "</head>"
            f'<body><header><strong>dealer</strong><nav>{nav}</nav></header><main>{body}</main>{tail}'
            f"</body></html>")


def room_page() -> str:
    body = """
<section id="head"><h1 id="title">Room</h1>
  <p><span id="status" class="status">connecting</span> <span id="message"></span></p>
  <p><progress id="bar" max="1" value="0"></progress> <span id="count">0/0 boards verified</span>
     <span id="rate"></span> · <span id="connection" class="connection">live</span></p>
  <p class="actions"><button id="stop" type="button" disabled>Stop</button>
     <button id="resume" type="button" disabled>Resume</button> <span id="said" aria-live="polite"></span></p>
  <div id="next" hidden><p>To go on, press <strong>Resume</strong>, or type this in the console's work folder:</p>
     <pre><code id="command"></code></pre></div></section>
<section><h2>Machines</h2>
  <table id="machines" class="stack"><thead><tr><th>machine</th><th>state</th><th>board in hand</th><th>step</th>
  <th>boards verified</th><th>faults</th><th>time on boards</th><th>boards/hour</th></tr></thead><tbody></tbody>
  </table></section>
<section><h2>Boards</h2><div id="legend"></div><div id="grid"></div></section>
<section><h2>Faults, in the order they happened</h2>
  <table id="faults" class="stack"><thead><tr><th>#</th><th>machine</th><th>board</th><th>Law</th><th>fault</th>
  <th>action</th></tr></thead><tbody></tbody></table></section>
<section><pre id="summary"></pre></section>"""
    return layout("Room", "/", body, "room.js")


def start_page(machines: Sequence[tuple[str, str]], files: Sequence[str]) -> str:
    """The Start page: the machines offered (id, what it is) and the files of the work folder (names)."""
    choices = "".join(
        f'<label class="port"><input type="checkbox" name="machine" value="{escape(key, quote=True)}"> '
        f"{escape(text)}</label>" for key, text in machines)
    options = "".join(f'<option value="{escape(name, quote=True)}">{escape(name)}</option>' for name in files)
    body = f"""
<h1>Start a run</h1>
<form id="start">
  <fieldset><legend>What to deal</legend>
    <label>Deal file or congress plan (.toml) of the console's work folder
      <select id="source" name="source"><option value="">(choose a file)</option>{options}</select></label>
    <label>or upload one <input id="upload" type="file" name="upload"></label>
    <label>Copies <input id="copies" type="number" min="1" value="1" size="3"></label>
    <label>Board set <input id="set" value="A" size="4"></label>
    <label><input id="resume" type="checkbox"> resume the unfinished run</label>
    <label><input id="replay" type="checkbox"> a replay of deals dealt before (Law 6D2: the deals were played
      in another session and are dealt again on purpose)</label>
  </fieldset>
  <fieldset id="ports"><legend>Machines (a plan deals on its own)</legend>{choices or "<p>No machine found.</p>"}
  </fieldset>
  <p><button id="check" type="button">Check</button> <button id="go" type="button" disabled>Start</button>
     <button id="stop" type="button">Stop</button> <button id="resume-last" type="button">Resume</button></p>
</form>
<p id="said" aria-live="polite"></p>
<section id="validation" aria-live="polite"></section>"""
    return layout("Start a run", "/start", body, "start.js")


def report_page(runs: Sequence[dict[str, Any]], chosen: dict[str, Any] | None) -> str:
    items = "".join(f'<li><a href="/report?j={r["j"]}&amp;run={r["id"]}">{escape(r["journal"])} run {r["id"]}: '
                    f'{escape(r["name"])}{"" if r["finished"] else " (not finished)"}</a></li>' for r in runs)
    body = f"<h1>Report</h1><ul id=\"runs\">{items or '<li>No run yet.</li>'}</ul>"
    if chosen is not None:
        q = f'j={chosen["j"]}&amp;run={chosen["id"]}'
        actions = "".join(f"<tr><td>{escape(m)}</td><td>{escape(a)}</td><td>{n}</td></tr>"
                          for m, a, n in chosen["actions"])
        body += f"""
<section id="report"><h2>{escape(chosen["name"])}</h2>
  <p class="downloads">Download: <a id="csv" href="/report/download?{q}&amp;as=csv">report (CSV)</a>
   · <a id="json" href="/report/download?{q}&amp;as=json">report (JSON)</a>
   · <a href="/report/download?{q}&amp;as=labels">board labels (SVG)</a>
   · <a href="/report/download?{q}&amp;as=records">hand records (HTML, director only)</a></p>
  <h3>Boards per hour per machine</h3>{chosen["rate_chart"]}
  <h3>Faults by Law</h3>{chosen["law_chart"]}
  <h3>Operator actions</h3><table><thead><tr><th>machine</th><th>action</th><th>times</th></tr></thead>
  <tbody>{actions or '<tr><td colspan="3">none</td></tr>'}</tbody></table>
  <h3>Summary</h3><pre>{escape(chosen["summary"])}</pre></section>"""
    return layout("Report", "/report", body)


def director_page(unlocked: bool, wait: float, message: str = "", board_html: str = "", label: str = "") -> str:
    """The director's page: the unlock form (or, after too many wrong PINs from here, the `wait` in seconds
    before the next try), or once unlocked the board finder."""
    if not unlocked:
        form = ("<p>The director's PIN was printed in the terminal when the console started.</p>"
                '<form method="post" action="/director/unlock"><label>PIN <input name="pin" type="password" '
                'autocomplete="off"></label> <button>Unlock</button></form>') if wait <= 0 else (
                f"<p>Too many wrong PINs: try again in {wait:.0f} seconds.</p>")
        body = f"<h1>Director</h1>{form}<p class=\"message\">{escape(message)}</p>"
        return layout("Director", "/director", body)
    body = f"""<h1>Director: a board's deal</h1>
<form method="post" action="/director/board"><label>Scan or type the board's label
  <input name="label" autofocus value="{escape(label, quote=True)}" placeholder="A:7:SN:X or A 7"></label>
  <button>Show</button></form>
<form method="post" action="/director/lock"><button>Lock</button></form>
<p class="message">{escape(message)}</p><div id="board">{board_html}</div>"""
    return layout("Director", "/director", body, styles=("/records.css",))
