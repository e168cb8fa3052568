"""PROTOCOL.md 13 lists every device-visible change since the first text of version 1: each sentence of today's
text that binds a device (or says what a device does) and is not in the first text word for word is either one of
section 13's numbered items or marked here as binding the host only or saying an old rule more plainly. A new
such sentence fails until it is classified, and a classification that names an item section 13 lacks fails too."""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.paths import ROOT

FIRST = ROOT / "tests" / "support" / "first_text_device" / "PROTOCOL-first-text.md"
TODAY = ROOT / "firmware_protocol" / "PROTOCOL.md"
DUTY = re.compile(r"\b(MUST|SHOULD|MAY|never|always|refused|Refused|only)\b")
HOST = re.compile(r"^\W*(\*\*)?(A|a|The|the|this project's) host\b|\bhost (MUST|SHOULD|MAY)\b|Note \(not normative\)")
PLAIN, HOST_ONLY = "plain", "host"
"""Not a device-visible change: the same rule said more plainly, or a rule of the host's."""

CLASSIFIED: dict[str, int | str] = {
    "A sender always sends the canonical encoding": 21,
    "A malformed frame of a type the receiver never receives": 6,
    "So a host whose Hello goes unanswered for 1 s": HOST_ONLY,
    "**Status first, on every contact.**": HOST_ONLY,
    "Every value is a valid `boot_id`, 0 included": HOST_ONLY,
    "By default the host **gives up**": HOST_ONLY,
    "A device that hears the host (any frame": 11,
    "A receiver MAY send `Nak`": 6,
    "A NAK is never required": PLAIN,
    "the two Progress rules meet and the limit wins": 12,
    "Progress is information only": HOST_ONLY,
    "**Eject raises no event**": PLAIN,
    "**Liveness.** A device that dies during an action": HOST_ONLY,
    "So, during any action, and while it waits for its operator": HOST_ONLY,
    "A device that stops speaking mid-action is therefore given up": HOST_ONLY,
    "**Hello and HelloAck are the only messages whose payload a receiver takes": 1,
    "Only **HelloAck** grows": 1,
    "**A device that announces SIMULATED MUST NOT answer in version 1**": 22,
    "A device of version 1 that is given firmware of version 2 MAY take a new serial": 9,
    "MUST come up IDLE after a restart": 23,
    "**A device MAY answer an older host in the older version**": 22,
    "HelloAck MAY grow at its end": 1,
    "A device MUST send a serial that is": 9,
    "**unique** among all machines of its maker and model": 9,
    "A simulated machine (SIMULATED) keeps the same rules among the simulations": 9,
    "It MUST NOT deal on a machine of version 2 or later": HOST_ONLY,
    "Hoppers are numbered from **0**": 19,
    "* **LoadDeal**: the 13 deal bytes MUST give": 13,
    "* **StartDeal(job)** is checked in this order": 13,
    "A later scan ending NO_READ or NO_BOARD does not cancel an OK one": 13,
    "* **Abort** stops dealing only": 15,
    "* **Capabilities that are missing.**": PLAIN,
    "Without RESUME_AFTER_FAULT no fault is resumable": PLAIN,
    "**Reset with any other mode** is refused": 14,
    "A fault noticed outside dealing, such as the door opened while idle": 16,
    "A door left open outside dealing refuses no command": 16,
    "A device never drops an event while it runs": 7,
    "Events wait in order behind the outstanding one": 7,
    "A board of another session, or one already dealt, is refused": HOST_ONLY,
    "**On every resume, the physical truth first.**": HOST_ONLY,
    "This is the host's rule on every machine": HOST_ONLY,
    "**What is malformed, exactly.**": 20,
    "So an event is never retransmitted forever because one end thinks a value wrong": 20,
    "So a report of an earlier attempt, held back over a new Hello": HOST_ONLY,
    "A stray card whose pocket the machine does not know": 17,
    "So `pocket_counts` always add up to `cards_dealt`": 17,
    "A MISFEED is never resumable": 17,
    "The order carries no meaning": PLAIN,
    "A Fault with job 0 (below) is no report of any request": 16,
    "So a host takes a RecountReport as the answer to a Recount": HOST_ONLY,
    "* **Display**: `text` (up to 80 bytes of ASCII)": PLAIN,
    "A machine that deals real cards MUST NOT announce it": 8,
    "| 3 | MISFEED | pocket the stray card went to": 17,
    "Any other mode is refused with `UNSUPPORTED`": 14,
    "Events it had raised and not yet had acknowledged are lost": 7,
}


def _sentences(path: Path) -> list[str]:
    """The sentences of the device's sections (2 to 7, 9), code blocks left out."""
    doc = path.read_text(encoding="utf-8")
    doc = re.sub(r"```.*?```", "", doc, flags=re.S)
    doc = doc[doc.index("## 2. Frames"):doc.index("## 8. One board")] + doc[
        doc.index("## 9. Crashes"):doc.index("## 10. Golden")]
    out = []
    for para in re.split(r"\n\s*\n|\n(?=\* |\d+\. |\| )", doc):
        text = re.sub(r"\s+", " ", para)
        out += [s.strip() for s in re.split(r"(?<=[.;])\s+(?=[A-Z*(])", text) if s.strip()]
    return out


def _norm(sentence: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", sentence.lower()).strip()


def changed_duties() -> list[str]:
    """Today's sentences that bind or describe a device and are not in the first text."""
    first = {_norm(s) for s in _sentences(FIRST)}
    return [s for s in _sentences(TODAY) if _norm(s) not in first and DUTY.search(s) and not HOST.search(s)]


def section_13_items() -> set[int]:
    doc = TODAY.read_text(encoding="utf-8")
    part = doc[doc.index("## 13. Changes from version 1"):doc.index("**New in the schema text:**")]
    return {int(n) for n in re.findall(r"^(\d+)\. \*\*", part, re.M)}


def test_every_changed_device_rule_is_listed_in_section_13() -> None:
    changed = changed_duties()
    assert len(changed) >= 40  # the reading finds the changes (the first text is kept as it was)
    unclassified = [s[:140] for s in changed if not any(fragment in s for fragment in CLASSIFIED)]
    assert unclassified == [], "a device rule changed since the first text, not in PROTOCOL.md 13:\n" + "\n".join(
        unclassified)
    items = section_13_items()
    assert sorted({n for n in CLASSIFIED.values() if isinstance(n, int)} - items) == []


def test_section_13_keeps_no_item_nothing_points_at() -> None:
    """Each numbered item of section 13 is the home of some changed sentence (none left over from a rule since
    removed), the first two excepted only if their rule is in the schema."""
    changed = changed_duties()
    used = {n for fragment, n in CLASSIFIED.items() if isinstance(n, int) and any(fragment in s for s in changed)}
    assert sorted(section_13_items() - used - {2, 3, 4, 5, 10, 18}) == []
