#!/usr/bin/env python3
"""Regenerate the Big Deal fixtures in this folder from a ``bigdealx`` binary.

    python3 tests/data/bigdeal/make_fixtures.py /path/to/bigdealx

Every case is a seed, an owner and a board range; for each case ``bigdealx`` runs three times in a
scratch folder (HOME pointing there, a ``.bigdealrc`` that asks nothing, standard input from
/dev/null), because one run takes at most 10 formats and two formats of one suffix cannot share a
run (``dup``/``dupblind``, ``dlm``/``dlmblind``). The files it writes go to ``<case id>/`` here and
everything about the runs to ``cases.json``: the exact argv, the files written with their SHA-256, and
the formats Big Deal refused with its message. CI never runs this script; see README.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

RC = "[BigDeal]\nformats=pbn\naskformats=no\nowner=Identification of owner or tournament\n"

# Big Deal sources the binary was built from: repository hansvanstaveren/BigDeal, file -> commit of the
# version fetched (see README.md)
SOURCES = {
    "Makefile": "0146b0021a8f1c949b02c8e5051e8c682bf6eab8",
    "main.c": "15b764fd88aff22aa1fca512da48f3ab1daedb31",
    "output.c": "0146b0021a8f1c949b02c8e5051e8c682bf6eab8",
    "binomial.c": "868aa9d7b24875352a69613b309be572a30ac543",
    "collect.c": "868aa9d7b24875352a69613b309be572a30ac543",
    "mp.c": "868aa9d7b24875352a69613b309be572a30ac543",
    "rmd160.c": "868aa9d7b24875352a69613b309be572a30ac543",
    "unix.c": "0412091f2f2ec0467df9b828b2646f552a174afe",
    "bigdeal.h": "01512b17fc3ad96c7957e1b603ceb4f995dd43d0",
    "binomial.h": "0146b0021a8f1c949b02c8e5051e8c682bf6eab8",
    "collect.h": "a4338f62fe612c4cb42d5dbaf7d8efc237df977e",
    "mp.h": "a4338f62fe612c4cb42d5dbaf7d8efc237df977e",
    "os.h": "5e9c45b0f68352201d2ed65faac92576c8da19ce",
    "output.h": "a4338f62fe612c4cb42d5dbaf7d8efc237df977e",
    "rmd160.h": "a4338f62fe612c4cb42d5dbaf7d8efc237df977e",
    "types.h": "310042d80276ef3062525dc1d6cf710e10d4ae6d",
}

# random seeds drawn once for these fixtures (secrets.token_hex(20))
SEEDS = {
    "s1": "2032485c069ff21b50ba601651bdff38908bf5b0",
    "s2": "8155f78f40f07a953de78bbb8224f4f94e9d5aaa",
    "s3": "e0e6ca61b51443a68ba16cde02a2928d7baa9c07",
    "s4": "a03e4ff19196bde498337e73f7f36dd4e5f91976",
    "s5": "dcfa9d98b5cd2a1182ea9c52d44aa4d37fa40894",
    "s6": "d6839c68b6d66e8d80090fe42a283ccbe31d85d3",
}

# owner label -> the owner's text and the encoding of the bytes bigdealx is given (as a terminal in that
# code page hands them to it): UTF-8 as on Unix, Latin-1 and cp1252 as on Windows
OWNERS: dict[str, str | tuple[str, str]] = {
    "empty": "",
    "long300": ("Owner string of 300 ASCII characters for the Big Deal fixtures; " * 5)[:300],
    "zurich": "Bridgeclub Zürich – Ümlaut",
    "joeblow": "Joe Blow, from Dealville, IL",
    "quotes": 'Club "De Schoppen"; Heren, Dames, Paren; it\'s \'on\'',
    "northshire": "Northshire Bridge Association",
    "zurichlatin1": ("Zürich", "latin-1"),
    "zurichcp1252": ("Bridgeclub Zürich – Ümlaut", "cp1252"),
    "eurocp1252": ("€uro club", "cp1252"),
}

# (seed, owner, bigdealx -n value): "16" is boards 1-16 for bigdealx
CASES = [
    ("s1", "empty", "1"),
    ("s1", "empty", "16"),
    ("s1", "empty", "98-101"),
    ("s1", "empty", "1-99"),
    ("s1", "northshire", "16"),  # the same seed with another owner: other deals
    ("s2", "long300", "1"),
    ("s2", "long300", "5-20"),
    ("s2", "long300", "2-17"),
    ("s2", "long300", "1-100"),
    ("s3", "zurich", "16"),
    ("s3", "zurich", "5-20"),
    ("s3", "zurich", "98-101"),
    ("s3", "zurich", "1-100"),
    ("s4", "joeblow", "2-17"),
    ("s4", "joeblow", "1-99"),
    ("s5", "quotes", "1"),
    ("s5", "quotes", "5-20"),
    ("s5", "quotes", "98-101"),
    ("s6", "northshire", "16"),
    ("s6", "northshire", "2-17"),
    ("s6", "northshire", "1-99"),
    ("s6", "northshire", "1-100"),
    ("s1", "zurichlatin1", "16"),  # owners that are not UTF-8: a Latin-1 and a cp1252 terminal's bytes
    ("s1", "zurichlatin1", "5-20"),
    ("s3", "zurichcp1252", "16"),  # s3-zurich's owner typed on Windows: other bytes, other deals
    ("s4", "eurocp1252", "2-17"),
]

# Big Deal format name -> file suffix (output.c's table; "stdout" is the pbn writer on standard
# output, not a file, and is left out)
SUFFIX = {
    "dup": ".dup", "dupblind": ".dup", "dlm": ".dlm", "dlmblind": ".dlm", "bri": ".bri", "dge": ".dge",
    "pbn": ".pbn", "lin": ".lin", "csv": ".csv", "ber": ".ber", "borel": ".bhg", "kops": ".rzd",
    "cds": ".cds", "goedel": ".goe", "stats": ".txt",
}

# (file prefix, formats): at most 10 formats a run, one format per suffix
RUNS = [
    ("deals", ["dup", "dlm", "bri", "dge", "pbn", "lin", "csv", "ber", "borel", "kops"]),
    ("deals", ["cds", "goedel", "stats"]),
    ("deals-blind", ["dupblind", "dlmblind"]),
]

REFUSAL = "Format {name} supports 99 as high board, skipping"


def board_range(value: str) -> tuple[int, int]:
    """First and last board of a bigdealx -n value, as its setboards() reads it."""
    if "-" in value:
        low, high = value.split("-")
        return int(low), int(high)
    return 1, int(value)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def owner_of(label: str) -> tuple[str, str, bytes]:
    """The owner's text, the encoding of its bytes, and the bytes bigdealx is given."""
    value = OWNERS[label]
    text, encoding = (value, "utf-8") if isinstance(value, str) else value
    return text, encoding, text.encode(encoding)


def run_case(bigdealx: str, seed_label: str, owner_label: str, boards: str) -> tuple[dict[str, Any], str]:
    seed = SEEDS[seed_label]
    owner, encoding, owner_bytes = owner_of(owner_label)
    case_id = f"{seed_label}-{owner_label}-{boards}"
    target = HERE / case_id
    if target.exists():
        shutil.rmtree(target)
    target.mkdir()
    first, last = board_range(boards)
    case: dict[str, Any] = {"id": case_id, "seed": seed, "owner": owner, "owner_encoding": encoding,
                            "owner_hex": owner_bytes.hex(),
                  "range": boards, "first_board": first, "last_board": last, "runs": [], "files": [],
                  "refused": []}
    banner = ""
    with tempfile.TemporaryDirectory() as scratch:
        work = Path(scratch)
        (work / ".bigdealrc").write_text(RC, encoding="ascii")
        env = {"HOME": scratch, "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LC_ALL": "C.UTF-8"}
        for prefix, names in RUNS:
            argv = ["-h", seed, "-W", owner, "-n", boards, "-f", ",".join(names), "-p", prefix]
            raw = [owner_bytes if k == 3 else a.encode("utf-8") for k, a in enumerate(argv)]  # argv[3]: -W's
            done = subprocess.run([bigdealx, *raw], cwd=work, env=env,
                                  stdin=subprocess.DEVNULL, capture_output=True, timeout=120)
            if done.returncode != 0:
                sys.exit(f"{case_id}: bigdealx exited {done.returncode}: {done.stderr.decode(errors='replace')}")
            banner = done.stdout.decode("utf-8").splitlines()[0]
            errors = [line for line in done.stderr.decode("utf-8").splitlines() if line]
            refused = []
            for name in names:
                message = REFUSAL.format(name=name)
                if message in errors:
                    errors.remove(message)
                    refused.append({"format": name, "message": message})
            if errors:
                sys.exit(f"{case_id}: unexpected messages from bigdealx: {errors}")
            written = []
            for name in names:
                if any(r["format"] == name for r in refused):
                    continue
                file = prefix + SUFFIX[name]
                shutil.copyfile(work / file, target / file)
                entry = {"name": file, "format": name, "size": (target / file).stat().st_size,
                         "sha256": sha256(target / file)}
                written.append(entry)
            case["runs"].append({"argv": ["bigdealx", *argv], "formats": names,
                                 "written": [w["name"] for w in written], "refused": refused})
            case["files"] += written
            case["refused"] += refused
        left = sorted(p.name for p in work.iterdir())
        extra = set(left) - {".bigdealrc", "deallog.txt"} - {f["name"] for f in case["files"]}
        if extra:
            sys.exit(f"{case_id}: bigdealx wrote files not accounted for: {sorted(extra)}")
    return case, banner


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    bigdealx = str(Path(argv[1]).resolve())
    cases = []
    banners = set()
    for seed_label, owner_label, boards in CASES:
        case, banner = run_case(bigdealx, seed_label, owner_label, boards)
        cases.append(case)
        banners.add(banner)
    if len(banners) != 1:
        sys.exit(f"bigdealx printed different banners: {banners}")
    manifest = {
        "about": "Files written by Big Deal's bigdealx for each case; see README.md. Generated by "
                 "make_fixtures.py.",
        "bigdeal": {"banner": banners.pop(), "repository": "hansvanstaveren/BigDeal", "sources": SOURCES},
        "bigdealrc": RC,
        "cases": cases,
    }
    (HERE / "cases.json").write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n",
                                     encoding="utf-8")
    total = sum(f["size"] for c in cases for f in c["files"])
    print(f"{len(cases)} cases, {sum(len(c['files']) for c in cases)} files, {total} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
