"""`dealer stats` as users run it: the report over the example session, its charts rendered (SVG in the
HTML with resvg, the PDF with pypdfium2) and every bar's height read back from the pixels and compared
with the numbers; the journal and plan inputs; the shuffle model; errors; and no deal anywhere.

The numbers the bars are compared with are not the report's own: the counted shares come from the PBN
text read with a regular expression and counted hand by hand (tests/stats/helpers.py); the exact shares
of the figures that follow from one hand or one partnership are counted there too, directly. The two
per-deal figures (longest suit in the deal, wild deals) take the report's exact fractions, which
tests/stats/test_exact.py checks against published and independent counts.
"""

from __future__ import annotations

import io
import json
import re
import stat
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from dealer import formats
from dealer.cli import main
from dealer.core.cards import hand_text
from dealer.core.dealset import DealSet
from dealer.engines import make_engine
from dealer.journal.jobplan import JobPlan
from dealer.journal.store import Journal
from tests.support.deal_features import (
    bars_in,
    baselines,
    chart_bars,
    check_heights,
    grouped,
    pbn_hands,
    plain_counts,
    plain_shares,
)
from tests.support.deals import random_deals
from tests.support.umask import public_mode

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples").glob("*.pbn"))
DPI = 200
CHART = re.compile(r'<figure class="chart" data-key="(\w+)">\s*(<svg.*?</svg>)', re.DOTALL)
LABEL = re.compile(r'<text [^>]*text-anchor="middle"[^>]*>([^<]*)</text>')
PDF_CHARTS = (("patterns", "hcp", "suit_lengths"), ("longest_in_hand", "shortest_in_hand", "longest_in_deal"),
              ("longest_fit", "wild"))


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """`dealer stats examples/*.pbn` written as HTML, PDF and JSON, with what it printed."""
    assert EXAMPLES, "examples/ holds no PBN file"
    folder = tmp_path_factory.mktemp("stats")
    out: dict[str, Any] = {"folder": folder, "printed": ""}
    for kind in ("html", "pdf", "json"):
        path = folder / f"stats.{kind}"
        stdout, stderr = io.StringIO(), io.StringIO()
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr("sys.stdout", stdout)
            mp.setattr("sys.stderr", stderr)
            assert main(["stats", *map(str, EXAMPLES), "-o", str(path)]) == 0
        out[kind] = path
        out["printed"] += stdout.getvalue() + stderr.getvalue()
    out["hands"] = [hand for path in EXAMPLES for hand in pbn_hands(path.read_text())]
    return out


def expected_values(report: dict[str, Any]) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]]]:
    """Per figure: the counted shares (plain count of the PBN text) and the exact shares, by label."""
    counted: dict[str, dict[str, float]] = {}
    for key, counts in plain_counts(report["hands"]).items():
        units = sum(counts.values())
        counted[key] = {label: n / units for label, n in counts.items()}
    exact: dict[str, dict[str, float]] = {k: {label: float(v) for label, v in values.items()}
                                          for k, values in plain_shares().items()}
    body = json.loads(report["json"].read_text())
    for figure in body["samples"][0]["figures"]:
        if figure["key"] in ("longest_in_deal", "wild"):
            exact[figure["key"]] = {c["label"]: float(Fraction(c["probability_exact"])) for c in figure["categories"]}
    return counted, exact


def html_charts(report: dict[str, Any]) -> dict[str, str]:
    return dict(CHART.findall(report["html"].read_text()))


def render_svg(svg: str) -> Any:
    import resvg_py
    from PIL import Image

    png = resvg_py.svg_to_bytes(svg_string=svg, dpi=DPI, background="#ffffff")
    return Image.open(io.BytesIO(bytes(png)))


def test_the_report_renders_one_chart_per_figure(report: dict[str, Any]) -> None:
    charts = html_charts(report)
    assert list(charts) == ["patterns", "hcp", "suit_lengths", "longest_in_hand", "shortest_in_hand",
                            "longest_in_deal", "longest_fit", "wild"]
    html = report["html"].read_text()
    assert html.startswith("<!DOCTYPE html>") and html.rstrip().endswith("</html>")
    assert "These 32 deals are" in html and "of the time" in html
    assert stat.S_IMODE(report["html"].stat().st_mode) == public_mode()   # statistics, no deal: not secret


def test_every_bar_of_the_html_charts_is_its_share(report: dict[str, Any]) -> None:
    counted, exact = expected_values(report)
    for key, svg in html_charts(report).items():
        labels = LABEL.findall(svg)
        image = render_svg(svg)
        bars = bars_in(image)
        lines = baselines(bars)
        assert len(lines) == 1, (key, lines)
        on_axis = chart_bars(bars, lines[0])
        check_heights(on_axis, grouped(exact[key], labels), grouped(counted[key], labels))


def test_every_bar_of_the_pdf_charts_is_its_share(report: dict[str, Any]) -> None:
    import pypdfium2 as pdfium

    counted, exact = expected_values(report)
    labels = {key: LABEL.findall(svg) for key, svg in html_charts(report).items()}
    doc = pdfium.PdfDocument(str(report["pdf"]))
    try:
        assert len(doc) == 1 + len(PDF_CHARTS) + 1           # summary, charts, notes on method
        assert "These 32 deals are" in doc[0].get_textpage().get_text_range()
        for page, keys in enumerate(PDF_CHARTS, start=1):
            image = doc[page].render(scale=DPI / 72).to_pil()
            bars = bars_in(image)
            lines = baselines(bars)
            assert len(lines) == len(keys), (page, lines)
            for key, line in zip(keys, lines, strict=True):
                check_heights(chart_bars(bars, line), grouped(exact[key], labels[key]),
                              grouped(counted[key], labels[key]))
    finally:
        doc.close()


def test_the_json_counts_are_the_plain_counts(report: dict[str, Any]) -> None:
    body = json.loads(report["json"].read_text())
    sample = body["samples"][0]
    assert sample["deals"] == len(report["hands"]) == 32
    plain = plain_counts(report["hands"])
    for figure in sample["figures"]:
        assert {c["label"]: c["observed"] for c in figure["categories"] if c["observed"]} == \
            dict(plain[figure["key"]])
        assert sum(Fraction(c["probability_exact"]) for c in figure["categories"]) == 1
    assert 0 < sample["chance"] <= 1 and sample["verdict"].startswith("These 32 deals are")


def test_no_deal_is_printed_or_written(report: dict[str, Any]) -> None:
    import pypdfium2 as pdfium

    deals = DealSet.concat(formats.read_file(p) for p in EXAMPLES)
    hands = {hand_text(d, seat) for d in deals.deals for seat in range(4)}
    doc = pdfium.PdfDocument(str(report["pdf"]))
    try:
        pdf_text = "".join(doc[i].get_textpage().get_text_range() for i in range(len(doc)))
    finally:
        doc.close()
    for text in (report["printed"], report["html"].read_text(), report["json"].read_text(), pdf_text):
        assert not [h for h in hands if h in text]
        assert "[Deal" not in text and "N:" not in text


# --- journal, plan, model ---------------------------------------------------------------------------------


def session(tmp_path: Path, name: str, seed: int, boards: int = 16) -> tuple[Path, DealSet]:
    deals = DealSet.from_deals(make_engine("shuffle", bytes([seed]) * 32).deals(boards))
    path = tmp_path / f"{name}.pbn"
    formats.write_file(path, deals)
    return path, deals


def test_a_journals_deals_are_found_again_and_proven(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first, deals1 = session(tmp_path, "mon", 1)
    second, deals2 = session(tmp_path, "tue", 2)
    journal = tmp_path / "club.journal"
    with Journal.open(journal) as j:
        for path, deals in ((first, deals1), (second, deals2)):
            j.begin_run(path.stem, str(path.resolve()), deals, [JobPlan(int(b), 1, "", "A") for b in deals.boards])
    out = tmp_path / "year.json"
    assert main(["stats", "--journal", str(journal), "-o", str(out)]) == 0
    sample = json.loads(out.read_text())["samples"][0]
    assert sample["deals"] == 32 and sample["name"] == "journal club.journal (2 of 2 runs)"
    # a deal file changed since it was dealt is not taken for what was dealt
    changed = DealSet.from_deals(np.concatenate([deals2.deals[1:2], deals2.deals[1:]]))
    formats.write_file(second, changed, force=True)
    capsys.readouterr()
    assert main(["stats", "--journal", str(journal)]) == 0
    printed = capsys.readouterr().out
    assert "journal club.journal (1 of 2 runs): 16 deals" in printed
    assert "run 2 (tue) left out: its source has changed since: board 1 is not the deal dealt" in printed


def test_a_plans_sessions_and_its_journal_runs(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path, deals = session(tmp_path, "fri", 3, boards=24)
    plan = tmp_path / "congress.toml"
    plan.write_text('[event]\nname = "Spring"\n\n'
                    f'[[sessions]]\nname = "FRI"\nsource = {{ file = "{path.name}" }}\n\n'
                    '[[sessions.sections]]\nname = "A"\n\n'
                    '[[sessions]]\nname = "SAT"\nboards = "1-8"\nsource = "bigdeal"\n\n'
                    '[[sessions.sections]]\nname = "A"\n')
    assert main(["stats", "--plan", str(plan)]) == 0
    printed = capsys.readouterr().out
    assert "plan congress.toml (1 of 2 sessions): 24 deals" in printed
    assert "session SAT left out: its deals are not generated yet" in printed
    assert not (tmp_path / "deals").exists()                   # statistics never generate a plan's deals
    journal = tmp_path / "congress.journal"
    with Journal.open(journal) as j:
        j.begin_run("FRI", "plan congress.toml: file fri.pbn", deals, [JobPlan(1, 1, "A", "A1")])
    assert main(["stats", "--journal", str(journal)]) == 2       # a plan's run: its deals come with the plan
    assert "none of the deals asked for are at hand (run 1 (FRI) left out" in capsys.readouterr().err
    assert main(["stats", "--journal", str(journal), "--plan", str(plan)]) == 0
    assert "journal congress.journal (1 of 1 runs): 24 deals" in capsys.readouterr().out


def test_the_shuffle_model_beside_the_deals(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "model.json"
    argv = ["stats", *map(str, EXAMPLES), "--shuffle-model", "3", "--deals", "5000", "--seed", "7"]
    assert main([*argv, "-o", str(out)]) == 0
    samples = json.loads(out.read_text())["samples"]
    assert [s["deals"] for s in samples] == [32, 5000]
    assert samples[1]["name"] == "hand shuffling model: 3 riffle shuffles a deal"
    assert samples[1]["chance"] < 0.001 and samples[1]["wild_share"] < samples[1]["wild_expected"]
    assert "riffle shuffles" in " ".join(json.loads(out.read_text())["method"])
    again = tmp_path / "again.json"
    assert main([*argv, "-o", str(again)]) == 0
    assert again.read_text() == out.read_text()                # a seed makes the model reproducible
    assert main(["stats", "--shuffle-model", "1", "--deals", "50"]) == 0
    assert "hand shuffling model: 1 riffle shuffle a deal: 50 deals" in capsys.readouterr().out


@pytest.mark.parametrize(("argv", "message"), [
    (["stats"], "give deal files, --journal, --plan or --shuffle-model"),
    (["stats", "x.pbn", "-o", "out.txt"], "written as .html, .pdf or .json"),
    (["stats", "--shuffle-model", "11"], "1 to 10 riffle shuffles"),
    (["stats", "--shuffle-model", "2", "--deals", "0"], "--deals must be at least 1"),
    (["stats", "examples/session.pbn", "--deals", "5"], "--deals and --seed go with --shuffle-model"),
])
def test_bad_options_are_one_line_and_exit_2(argv: list[str], message: str, monkeypatch: pytest.MonkeyPatch,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(ROOT)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_bad_input_names_the_file_and_nothing_is_written(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.pbn"
    bad.write_text('[Board "1"]\n[Deal "N:AKQ.. ... ..."]\n')
    out = tmp_path / "stats.html"
    assert main(["stats", str(bad), "-o", str(out)]) == 3
    assert str(bad) in capsys.readouterr().err and not out.exists()
    out.write_text("keep me")
    assert main(["stats", *map(str, EXAMPLES), "-o", str(out)]) == 4
    assert "exists; use --force" in capsys.readouterr().err and out.read_text() == "keep me"
    assert main(["stats", "--journal", str(tmp_path / "none.journal")]) == 9
    assert not (tmp_path / "none.journal").exists()


def test_a_capped_bound_is_not_said_as_100_percent_of_the_time(tmp_path: Path,
                                                               capsys: pytest.CaptureFixture[str]) -> None:
    """From 1000 deals the chance is a Bonferroni bound; where it is capped at 1 the sentence says the
    result is common by chance, not that it happens '100 % of the time'."""
    path = tmp_path / "big.pbn"
    formats.write_file(path, DealSet.from_deals(random_deals(1, 1000)))
    assert main(["stats", str(path)]) == 0
    printed = capsys.readouterr().out
    assert "is common by chance (the bound on its chance, taken over every figure, reaches 100 % and says no " \
           "more)" in printed
    assert "100 % of the time" not in printed
