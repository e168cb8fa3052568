"""The console's HTML pages: plain HTML and CSS, the live parts filled in by the scripts of ``static/``
(`layout`'s `script`).

No page holds a card except the director's board view (`director_page` with a board found), which the
app serves only to an unlocked director.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Sequence
from html import escape
from pathlib import Path
from typing import Any, Final

from dealer.language import LANGUAGES, N_, _, n_, spoken_language

NAV = (("/", N_("Room")), ("/start", N_("Start a run")), ("/report", N_("Report")), ("/director", N_("Director")))
SCRIPT_WORD: Final = re.compile(r'\b(?:t|N_)\("((?:[^"\\]|\\.)*)"')
"""A message a script of ``static/`` says through its `t`, or marks with `N_` (read as the catalogue reads it)."""


def layout(title: str, active: str, body: str, script: str = "", styles: Sequence[str] = ()) -> str:
    """A whole page: head, the navigation, `body`; `script` a module of static/ to load; `styles` more
    stylesheets (their paths) after the console's own."""
    nav = "".join(f'<a href="{href}"{" class=active" if href == active else ""}>{escape(_(name))}</a>'
                  for href, name in NAV)
    spoken = spoken_language()
    switch = " ".join(f'<a href="?lang={code}" lang="{code}"{" class=active" if code == spoken else ""}>'
                      f"{escape(name)}</a>" for code, name in LANGUAGES.items())
    tail = (f'<script type="application/json" id="words">{script_words(script)}</script>'
            f'<script src="/static/words.js"></script><script src="/static/{script}"></script>') if script else ""
    return (f'<!doctype html><html lang="{spoken}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"<title>{escape(title)} - dealer</title>"
            f'<link rel="stylesheet" href="/static/style.css">'
            + "".join(f'<link rel="stylesheet" href="{escape(href, quote=True)}">' for href in styles)
            + "</head>"
            f'<body><header><strong>dealer</strong><nav>{nav}</nav><span id="languages">{switch}</span></header>'
            f"<main>{body}</main>{tail}</body></html>")


@functools.cache
def script_messages(script: str) -> tuple[str, ...]:
    """The messages a script of ``static/`` says (read once: the scripts do not change while the console runs)."""
    source = (Path(__file__).parent / "static" / script).read_text(encoding="utf-8")
    return tuple(dict.fromkeys(json.loads(f'"{found}"') for found in SCRIPT_WORD.findall(source)))


def script_words(script: str) -> str:
    """The messages a script says, each in the language spoken, as JSON safe inside a page's script element."""
    words = {message: _(message) for message in script_messages(script)}
    return json.dumps(words, ensure_ascii=False).replace("<", "\\u003c")


def _heads(*names: str) -> str:
    return "".join(f"<th>{escape(name)}</th>" for name in names)


ROOM: Final = """
<section id="head"><h1 id="title">{room}</h1>
  <p><span id="status" class="status">{connecting}</span> <span id="message"></span></p>
  <p><progress id="bar" max="1" value="0"></progress> <span id="count"></span>
     <span id="rate"></span> · <span id="connection" class="connection">{live}</span></p>
  <p class="actions"><button id="stop" type="button" disabled>{stop}</button>
     <button id="resume" type="button" disabled>{resume}</button>
     <span id="said" aria-live="polite"></span></p>
  <div id="next" hidden><p>{go_on}</p>
     <pre><code id="command"></code></pre></div></section>
<section><h2>{machines}</h2>
  <table id="machines" class="stack"><thead><tr>{machine_heads}</tr></thead><tbody></tbody></table></section>
<section><h2>{boards}</h2><div id="legend"></div><div id="grid"></div></section>
<section><h2>{faults}</h2>
  <table id="faults" class="stack"><thead><tr>{fault_heads}</tr></thead><tbody></tbody></table></section>
<section><pre id="summary"></pre></section>"""


def room_page() -> str:
    body = ROOM.format(
        room=_("Room"), connecting=_("connecting"), live=_("live"), stop=_("Stop"), resume=_("Resume"),
        go_on=_("To go on, press <strong>Resume</strong>, or type this in the console's work folder:"),
        machines=_("Machines"), boards=_("Boards"), faults=_("Faults, in the order they happened"),
        machine_heads=_heads(_("machine"), _("state"), _("board in hand"), _("step"), _("boards verified"),
                             _("faults"), _("time on boards"), _("boards/hour")),
        fault_heads=_heads("#", _("machine"), _("board"), _("Law"), _("fault"), _("action")))
    return layout(_("Room"), "/", body, "room.js")


def record_start_page(record: str) -> str:
    """The Start page of a console that shows a record the room's computers share: runs are begun there."""
    body = (f"<h1>{escape(_('Start a run'))}</h1><p>" + escape(_(
        "This console shows the record {journal}: every run of it is dealt by a dealing computer of the room, "
        "begun there with the journal's URL, and shown live in the Room.").format(journal=record)) + "</p>"
        "<pre><code>dealer deal --plan congress.toml --journal postgresql://...</code></pre>")
    return layout(_("Start a run"), "/start", body)


START: Final = """
<h1>{start_a_run}</h1>
<form id="start">
  <fieldset><legend>{what}</legend>
    <label>{file}
      <select id="source" name="source"><option value="">{choose}</option>{options}</select></label>
    <label>{upload} <input id="upload" type="file" name="upload"></label>
    <label>{copies} <input id="copies" type="number" min="1" value="1" size="3"></label>
    <label>{board_set} <input id="set" value="A" size="4"></label>
    <label><input id="resume" type="checkbox"> {resume_run}</label>
    <label><input id="replay" type="checkbox"> {replay}</label>
    <label><input id="teaching" type="checkbox"> {teaching}</label>
  </fieldset>
  <fieldset id="ports"><legend>{machines}</legend>{choices}
  </fieldset>
  <p><button id="check" type="button">{check}</button> <button id="go" type="button" disabled>{start}</button>
     <button id="stop" type="button">{stop}</button> <button id="resume-last" type="button">{resume}</button></p>
</form>
<p id="said" aria-live="polite"></p>
<section id="validation" aria-live="polite"></section>"""


def start_page(machines: Sequence[tuple[str, str]], files: Sequence[str]) -> str:
    """The Start page: the machines offered (id, what it is) and the files of the work folder (names)."""
    choices = "".join(
        f'<label class="port"><input type="checkbox" name="machine" value="{escape(key, quote=True)}"> '
        f"{escape(text)}</label>" for key, text in machines)
    options = "".join(f'<option value="{escape(name, quote=True)}">{escape(name)}</option>' for name in files)
    body = START.format(
        start_a_run=_("Start a run"), what=_("What to deal"),
        file=_("Deal file or congress plan (.toml) of the console's work folder"), choose=_("(choose a file)"),
        options=options, upload=_("or upload one"), copies=_("Copies"), board_set=_("Board set"),
        resume_run=_("resume the unfinished run"),
        replay=_("a replay of deals dealt before (Law 6D2: the deals were played in another session and are dealt "
                 "again on purpose)"),
        teaching=_("teaching (prepared boards, practice history): a lesson's boards, which may be made under "
                   "conditions (Law 6E4), dealt into the practice history, never the club's"),
        machines=_("Machines (a plan deals on its own)"), choices=choices or "<p>" + _("No machine found.") + "</p>",
        check=_("Check"), start=_("Start"), stop=_("Stop"), resume=_("Resume"))
    return layout(_("Start a run"), "/start", body, "start.js")


REPORT: Final = """
<section id="report"><h2>{name}</h2>
  <p class="downloads">{download} <a id="csv" href="/report/download?{q}&amp;as=csv">{csv}</a>
   · <a id="json" href="/report/download?{q}&amp;as=json">{json}</a>
   · <a href="/report/download?{q}&amp;as=labels">{labels}</a>
   · <a href="/report/download?{q}&amp;as=records">{records}</a></p>
  <h3>{per_hour}</h3>{rate_chart}
  <h3>{by_law}</h3>{law_chart}
  <h3>{operator}</h3><table><thead><tr>{heads}</tr></thead>
  <tbody>{actions}</tbody></table>
  <h3>{summary}</h3><pre>{text}</pre></section>"""


def report_page(runs: Sequence[dict[str, Any]], chosen: dict[str, Any] | None) -> str:
    items = "".join(f'<li><a href="/report?j={r["j"]}&amp;run={r["id"]}">'
                    + escape(_("{journal} run {run}: {name}").format(journal=r["journal"], run=r["id"], name=r["name"]))
                    + ("" if r["finished"] else " " + escape(_("(not finished)"))) + "</a></li>" for r in runs)
    body = "<h1>" + _("Report") + '</h1><ul id="runs">' + (items or "<li>" + _("No run yet.") + "</li>") + "</ul>"
    if chosen is not None:
        actions = "".join(f"<tr><td>{escape(m)}</td><td>{escape(a)}</td><td>{n}</td></tr>"
                          for m, a, n in chosen["actions"])
        body += REPORT.format(
            name=escape(chosen["name"]), q=f'j={chosen["j"]}&amp;run={chosen["id"]}', download=_("Download:"),
            csv=_("report (CSV)"), json=_("report (JSON)"), labels=_("board labels (SVG)"),
            records=_("hand records (HTML, director only)"), per_hour=_("Boards per hour per machine"),
            rate_chart=chosen["rate_chart"], by_law=_("Faults by Law"), law_chart=chosen["law_chart"],
            operator=_("Operator actions"), heads=_heads(_("machine"), _("action"), _("times")),
            actions=actions or '<tr><td colspan="3">' + _("none") + "</td></tr>", summary=_("Summary"),
            text=escape(chosen["summary"]))
    return layout(_("Report"), "/report", body)


UNLOCK: Final = """<p>{printed}</p><form method="post" action="/director/unlock"><label>{pin}
<input name="pin" type="password" autocomplete="off"></label> <button>{unlock}</button></form>"""
FINDER: Final = """<h1>{title}</h1>
<form method="post" action="/director/board"><label>{scan}
  <input name="label" autofocus value="{label}" placeholder="{example}"></label>
  <button>{show}</button></form>
<form method="post" action="/director/lock"><button>{lock}</button></form>
<p class="message">{message}</p><div id="board">{board}</div>"""


def director_page(unlocked: bool, wait: float, message: str = "", board_html: str = "", label: str = "") -> str:
    """The director's page: the unlock form (or, after too many wrong PINs from here, the `wait` in seconds
    before the next try), or once unlocked the board finder."""
    if not unlocked:
        form = UNLOCK.format(
            printed=_("The director's PIN was printed in the terminal when the console started."), pin=_("PIN"),
            unlock=_("Unlock")) if wait <= 0 else "<p>" + n_(
                "Too many wrong PINs: try again in {n} second.", "Too many wrong PINs: try again in {n} seconds.",
                round(wait)).format(n=f"{wait:.0f}") + "</p><p>" + _(
                "The director need not wait: press Enter at the console's terminal for a one-time link that lets "
                "the director in.") + "</p>"
        body = "<h1>" + _("Director") + "</h1>" + form + f'<p class="message">{escape(message)}</p>'
        return layout(_("Director"), "/director", body)
    body = FINDER.format(title=_("Director: a board's deal"), scan=_("Scan or type the board's label"),
                         label=escape(label, quote=True), example=escape(_("A:7:SN:X or A 7"), quote=True),
                         show=_("Show"), lock=_("Lock"), message=escape(message), board=board_html)
    return layout(_("Director"), "/director", body, styles=("/records.css",))
