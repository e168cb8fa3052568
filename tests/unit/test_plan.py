"""The congress plan: every check names its file and field (text that is not TOML: its line); jobs come out in
dealing order."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealer.core.errors import FormatError
from dealer.journal.jobplan import JobPlan
from dealer.plan import DealingOrder, EngineSource, Plan, PlanError, SessionSource
from tests.support.paths import ROOT
from tests.support.plan_texts import BASE, line_with, write


def error_of(tmp_path: Path, text: str) -> PlanError:
    path = write(tmp_path, text)
    with pytest.raises(PlanError) as info:
        Plan.load(path)
    return info.value


def edit(old: str, new: str, nth: int = 1) -> str:
    """BASE with the nth occurrence of `old` replaced by `new`."""
    at = -1
    for _ in range(nth):
        at = BASE.index(old, at + 1)
    return BASE[:at] + new + BASE[at + len(old):]


def check(tmp_path: Path, text: str, field: str, reason: str) -> None:
    """Loading `text` fails in one line naming the file and `field` (its key path), with `reason` in it."""
    err = error_of(tmp_path, text)
    assert (err.line, err.field) == (None, field), str(err)
    assert str(err).startswith(f"{tmp_path / 'congress.toml'}: {field}: ")
    assert reason in str(err)
    assert "\n" not in str(err)


# --- a good plan ----------------------------------------------------------------------------------


def test_a_good_plan_loads_with_its_defaults(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    assert plan.event.name == "Test Congress" and plan.event.owner == b"Test Owner"
    assert plan.event.deal_folder == tmp_path / "deals"
    assert plan.event.journal == tmp_path / "congress.journal"
    assert plan.event.order is DealingOrder.SET and plan.event.keep_seeds is False
    assert [(m.name, m.url) for m in plan.machines] == [("M1", "/dev/ttyUSB0"),
                                                        ("M2", "rfc2217://dealroom.local:4001")]
    mon1, mon2 = plan.sessions
    assert (mon1.name, mon1.number, mon1.boards, mon1.source, mon1.replay) == (
        "MON1", 1, (1, 2, 3, 4), EngineSource("bigdeal"), False)
    assert [(s.name, s.sets, s.copies, s.boards) for s in mon1.sections] == [
        ("A", ("A1", "A2"), 2, None), ("B", ("RED", "BLUE", "GREEN"), 3, None)]
    assert mon2.source == EngineSource("shuffle") and mon2.order is DealingOrder.BOARD
    assert [(s.name, s.sets, s.boards) for s in mon2.sections] == [("A", ("A1", "A2"), None),
                                                                    ("C", ("C1",), (6, 7))]
    assert plan.board_count == 7 and plan.job_count == 4 * 5 + 3 * 2 + 2


def test_the_example_plan_loads(tmp_path: Path) -> None:
    plan = Plan.load(ROOT / "examples" / "congress.toml")
    assert [s.name for s in plan.sessions] == ["FRI1", "SAT1", "SUN1", "FIN1"]
    assert plan.sessions[2].source == SessionSource("FRI1") and plan.sessions[2].replay
    assert plan.sessions[3].boards == tuple(range(1, 17))
    assert len(plan.machines) == 3


def test_plan_errors_are_format_errors_with_the_format_exit_code(tmp_path: Path) -> None:
    err = error_of(tmp_path, edit('boards = "1-4"', 'boards = "4-1"'))
    assert isinstance(err, FormatError) and isinstance(err, ValueError)
    assert err.exit_code == FormatError.exit_code and err.path == str(tmp_path / "congress.toml")


# --- the file itself --------------------------------------------------------------------------


def test_a_missing_plan_file_is_named(tmp_path: Path) -> None:
    with pytest.raises(PlanError, match="nothere.toml: cannot read the plan"):
        Plan.load(tmp_path / "nothere.toml")


def test_toml_syntax_errors_keep_tomllibs_line(tmp_path: Path) -> None:
    text = edit('copies = 2', 'copies = = 2')
    err = error_of(tmp_path, text)
    assert err.line == line_with(text, "copies = = 2") and "not valid TOML" in str(err)


def test_a_key_written_twice_is_a_syntax_error_on_the_second(tmp_path: Path) -> None:
    text = edit('boards = "1-4"\n', 'boards = "1-4"\nboards = "1-5"\n')
    assert error_of(tmp_path, text).line == line_with(text, 'boards = "1-5"')


def test_text_that_is_not_utf8_is_refused_at_its_line(tmp_path: Path) -> None:
    path = tmp_path / "congress.toml"
    path.write_bytes(BASE.encode().replace(b"Test Owner", b"Test \xff Owner"))
    with pytest.raises(PlanError) as info:
        Plan.load(path)
    assert info.value.line == line_with(BASE, "Test Owner") and "not UTF-8" in str(info.value)


# --- keys ---------------------------------------------------------------------------------------


def test_an_unknown_key_is_named_with_the_likely_one(tmp_path: Path) -> None:
    check(tmp_path, edit("copies = 2", "copeis = 2"), "sessions[1].sections[1].copeis",
          "unknown key (did you mean 'copies'?)")


def test_an_unknown_top_level_table_is_named(tmp_path: Path) -> None:
    check(tmp_path, BASE + "\n[venue]\ncity = 'Leeds'\n", "venue", "unknown key")


def test_an_unknown_event_key(tmp_path: Path) -> None:
    check(tmp_path, edit('owner = "Test Owner"', 'ownr = "Test Owner"'), "event.ownr",
          "did you mean 'owner'?")


@pytest.mark.parametrize(("old", "field", "missing"), [
    ('name = "Test Congress"\n', "event", "'name'"),
    ('name = "MON2"\n', "sessions[2]", "'name'"),
    ('boards = "1-4"\n', "sessions[1]", "'boards'"),
    ('port = "/dev/ttyUSB0"\n', "machines[1]", "'port'"),
])
def test_a_missing_required_key_is_placed_at_its_table(tmp_path: Path, old: str, field: str, missing: str) -> None:
    check(tmp_path, edit(old, ""), field, f"missing required key {missing}")


def test_a_session_without_sections_is_refused(tmp_path: Path) -> None:
    text = BASE + '\n[[sessions]]\nname = "TUE1"\nboards = 4\n'
    check(tmp_path, text, "sessions[3]", "missing required key 'sections'")


def test_a_plan_without_sessions_is_refused(tmp_path: Path) -> None:
    text = BASE[:BASE.index("[[sessions]]")]
    err = error_of(tmp_path, text)
    assert err.line is None and "missing required key 'sessions'" in str(err)


@pytest.mark.parametrize(("old", "new", "field", "kind"), [
    ("copies = 2", 'copies = "2"', "sessions[1].sections[1].copies", "a whole number"),
    ("copies = 2", "copies = true", "sessions[1].sections[1].copies", "a whole number"),
    ('name = "Test Congress"', "name = 3", "event.name", "text"),
    ('source = "shuffle"', 'source = "shuffle"\nreplay = "yes"', "sessions[2].replay", "true or false"),
])
def test_values_of_the_wrong_type_are_named(tmp_path: Path, old: str, new: str, field: str, kind: str) -> None:
    check(tmp_path, edit(old, new), field, f"must be {kind}")


# --- boards ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "reason"), [
    ('"9-3"', "9-3 runs backwards"),
    ('"0-3"', "boards start at 1"),
    ('"1-x"', "is not N or N-M"),
    ('"1-4,3"', "names a board twice"),
    ('"1-10000"', "board 10000 is beyond 9999"),
    ("0", "a board count must be at least 1"),
    ("[1, 2]", "must be a board range"),
])
def test_bad_board_ranges_are_named(tmp_path: Path, value: str, reason: str) -> None:
    check(tmp_path, edit('boards = "5-7"', f"boards = {value}"), "sessions[2].boards", reason)


def test_the_error_line_of_the_issue(tmp_path: Path) -> None:
    err = error_of(tmp_path, edit('boards = "5-7"', 'boards = "9-3"'))
    assert str(err) == f"{tmp_path / 'congress.toml'}: sessions[2].boards: 9-3 runs backwards"


def test_a_board_count_means_boards_from_1(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, edit('boards = "1-4"', "boards = 3")))
    assert plan.sessions[0].boards == (1, 2, 3)


def test_a_section_may_play_only_boards_of_its_session(tmp_path: Path) -> None:
    check(tmp_path, edit('boards = "6-7"', 'boards = "6-9"'), "sessions[2].sections[2].boards",
          "boards 8-9 are not boards of the session")


# --- names, sets, copies ------------------------------------------------------------------------


def test_duplicate_session_names_in_any_case(tmp_path: Path) -> None:
    check(tmp_path, edit('name = "MON2"', 'name = "mon1"'), "sessions[2].name",
          "session name 'mon1' is already used by sessions[1]")


def test_duplicate_section_names(tmp_path: Path) -> None:
    check(tmp_path, edit('name = "C"', 'name = "A"'), "sessions[2].sections[2].name",
          "section name 'A' is already used by sessions[2].sections[1]")


def test_duplicate_machine_names_and_ports(tmp_path: Path) -> None:
    check(tmp_path, edit('name = "M2"', 'name = "m1"'), "machines[2].name",
          "machine name 'm1' is already used by machines[1]")
    check(tmp_path, edit('port = "rfc2217://dealroom.local:4001"', 'port = "/dev/ttyUSB0"'), "machines[2].port",
          "port '/dev/ttyUSB0' is already used by machines[1]")


def test_a_board_set_used_by_two_sections_of_a_session(tmp_path: Path) -> None:
    check(tmp_path, edit('sets = ["RED", "BLUE", "GREEN"]', 'sets = ["RED", "a2", "GREEN"]'),
          "sessions[1].sections[2].sets", "board set A2 is already used by section A of this session")


def test_default_set_names_collide_too(tmp_path: Path) -> None:
    text = edit('name = "C"\nboards = "6-7"', 'name = "A1"\nboards = "6-7"')
    text = text.replace('name = "A"\ncopies = 2\n\n[[sessions.sections]]\nname = "A1"',
                        'name = "A"\ncopies = 11\n\n[[sessions.sections]]\nname = "A1"')
    check(tmp_path, text, "sessions[2].sections[2].name",
          "board set A11 is already used by section A of this session")


def test_a_board_set_may_serve_sessions_in_turn(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    assert "A1" in plan.sessions[0].sections[0].sets and "A1" in plan.sessions[1].sections[0].sets


def test_a_set_listed_twice_in_a_section(tmp_path: Path) -> None:
    check(tmp_path, edit('["RED", "BLUE", "GREEN"]', '["RED", "BLUE", "red"]'), "sessions[1].sections[2].sets[3]",
          "board set RED is listed twice")


def test_a_set_name_a_label_cannot_carry(tmp_path: Path) -> None:
    check(tmp_path, edit('["RED", "BLUE", "GREEN"]', '["RED", "BLUE:2", "GREEN"]'), "sessions[1].sections[2].sets[2]",
          "1-12 letters or digits")


def test_sets_and_copies_must_agree(tmp_path: Path) -> None:
    check(tmp_path, edit('sets = ["RED"', 'copies = 2\nsets = ["RED"'), "sessions[1].sections[2].sets",
          "3 board sets for 2 copies")


def test_a_section_name_too_long_for_default_set_names(tmp_path: Path) -> None:
    check(tmp_path, edit('name = "C"', 'name = "Northwestroom"'), "sessions[2].sections[2].name", "give sets = [...]")


def test_copies_must_be_at_least_one(tmp_path: Path) -> None:
    check(tmp_path, edit("copies = 2", "copies = 0"), "sessions[1].sections[1].copies",
          "at least 1 copy")


def test_a_session_name_must_make_a_file_name(tmp_path: Path) -> None:
    check(tmp_path, edit('name = "MON1"', 'name = "../MON1"'), "sessions[1].name",
          "letters, digits")


# --- orders and machines --------------------------------------------------------------------------


def test_an_unknown_dealing_order(tmp_path: Path) -> None:
    check(tmp_path, edit('order = "board"', 'order = "copies"'), "sessions[2].order",
          "'copies' is not a dealing order")


@pytest.mark.parametrize(("port", "reason"), [
    ("ttyUSB0", "is neither a serial device"),
    ("rfc2271://host:4001", "unknown URL scheme rfc2271://"),
    ("rfc2217://dealroom.local", "needs a host and a port number"),
    ("socket://:4001", "needs a host and a port number"),
    ("socket://host:99999", "needs a host and a port number"),
    ("/dev/", "is neither a serial device"),
])
def test_bad_ports_are_named(tmp_path: Path, port: str, reason: str) -> None:
    check(tmp_path, edit('port = "/dev/ttyUSB0"', f'port = "{port}"'), "machines[1].port",
          reason)


@pytest.mark.parametrize("port", ["COM3", "/dev/ttyUSB0", "/dev/cu.usbserial-1420", "socket://10.0.0.5:7000",
                                  "rfc2217://[::1]:2217", "loop://", "sim://machine1", "spy:///dev/ttyUSB1"])
def test_good_ports_are_taken(tmp_path: Path, port: str) -> None:
    plan = Plan.load(write(tmp_path, edit('port = "/dev/ttyUSB0"', f'port = "{port}"')))
    assert plan.machines[0].url == port


def test_machines_are_optional(tmp_path: Path) -> None:
    text = BASE.replace('[[machines]]\nname = "M1"\nport = "/dev/ttyUSB0"\n\n', "").replace(
        '[[machines]]\nname = "M2"\nport = "rfc2217://dealroom.local:4001"\n\n', "")
    assert Plan.load(write(tmp_path, text)).machines == ()


def test_a_deal_folder_that_is_a_file(tmp_path: Path) -> None:
    (tmp_path / "deals.txt").write_text("x")
    check(tmp_path, edit('owner = "Test Owner"', 'owner = "Test Owner"\ndeal_folder = "deals.txt"'),
          "event.deal_folder", "is not a folder")


# --- sources ------------------------------------------------------------------------------------


def test_an_unknown_engine(tmp_path: Path) -> None:
    check(tmp_path, edit('source = "shuffle"', 'source = "bigdeel"'), "sessions[2].source",
          "unknown engine 'bigdeel'")
    check(tmp_path, edit('source = "shuffle"', 'source = { engine = "x" }'), "sessions[2].source.engine",
          "unknown engine 'x'")


def test_a_missing_deal_file(tmp_path: Path) -> None:
    check(tmp_path, edit('source = "shuffle"', 'source = { file = "old/mon2.pbn" }'), "sessions[2].source.file",
          f"no such file: {tmp_path / 'old' / 'mon2.pbn'}")


def test_a_deal_file_of_no_known_format(tmp_path: Path) -> None:
    (tmp_path / "mon2.xyz").write_text("")
    check(tmp_path, edit('source = "shuffle"', 'source = { file = "mon2.xyz" }'), "sessions[2].source.file",
          "cannot tell the format")


def test_a_source_of_two_kinds(tmp_path: Path) -> None:
    check(tmp_path, edit('source = "shuffle"', 'source = { engine = "shuffle", deals_of = "MON1" }'),
          "sessions[2].source", "give exactly one of engine, file, squaredeal, deals_of")


def test_a_source_key_of_another_kind(tmp_path: Path) -> None:
    check(tmp_path, edit('source = "shuffle"', 'source = { engine = "shuffle", format = "pbn" }'),
          "sessions[2].source.format", "unknown key")


def test_a_replay_of_a_session_not_before(tmp_path: Path) -> None:
    check(tmp_path, edit('source = "shuffle"', 'source = { deals_of = "TUE1" }\nreplay = true'),
          "sessions[2].source.deals_of", "no session 'TUE1' before this one")


def test_reusing_the_deals_of_a_session_needs_replay(tmp_path: Path) -> None:
    check(tmp_path, edit('source = "shuffle"', 'source = { deals_of = "MON1" }'), "sessions[2].source",
          "only a replay session may deal the deals of session MON1 again (Law 6D2)")


def test_a_replay_takes_boards_of_the_session_it_replays(tmp_path: Path) -> None:
    text = edit('boards = "5-7"\nsource = "shuffle"', 'source = { deals_of = "mon1" }\nreplay = true')
    plan = Plan.load(write(tmp_path, text.replace('boards = "6-7"', 'boards = "3-4"')))
    assert plan.sessions[1].boards == (1, 2, 3, 4) and plan.sessions[1].source == SessionSource("MON1")
    text = edit('boards = "5-7"\nsource = "shuffle"', 'boards = "3-6"\nsource = { deals_of = "MON1" }\nreplay = true')
    check(tmp_path, text.replace('boards = "6-7"', 'boards = "3-4"'), "sessions[2].boards",
          "session MON1 holds boards 1-4, not 5-6")


# --- jobs -----------------------------------------------------------------------------------------


def test_set_by_set_deals_each_set_through_its_boards(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    jobs = plan.jobs("MON1")
    expected = [JobPlan(b, c, "A", f"A{c}") for c in (1, 2) for b in (1, 2, 3, 4)]
    expected += [JobPlan(b, c, "B", s) for c, s in enumerate(("RED", "BLUE", "GREEN"), 1) for b in (1, 2, 3, 4)]
    assert jobs == expected


def test_board_by_board_deals_every_copy_of_a_board_first(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    assert plan.jobs("mon2") == [
        JobPlan(5, 1, "A", "A1"), JobPlan(5, 2, "A", "A2"),
        JobPlan(6, 1, "A", "A1"), JobPlan(6, 2, "A", "A2"), JobPlan(6, 1, "C", "C1"),
        JobPlan(7, 1, "A", "A1"), JobPlan(7, 2, "A", "A2"), JobPlan(7, 1, "C", "C1")]


def test_the_event_order_applies_unless_a_session_says_otherwise(tmp_path: Path) -> None:
    text = edit('owner = "Test Owner"', 'owner = "Test Owner"\norder = "board"')
    text = text.replace('order = "board"\n\n[[sessions.sections]]', 'order = "set"\n\n[[sessions.sections]]')
    plan = Plan.load(write(tmp_path, text))
    assert [s.order for s in plan.sessions] == [DealingOrder.BOARD, DealingOrder.SET]
    assert plan.jobs("MON1")[:5] == [JobPlan(1, 1, "A", "A1"), JobPlan(1, 2, "A", "A2"), JobPlan(1, 1, "B", "RED"),
                                     JobPlan(1, 2, "B", "BLUE"), JobPlan(1, 3, "B", "GREEN")]


def test_every_copy_of_every_board_appears_once_in_either_order(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    for session, jobs in plan.all_jobs():
        assert len(jobs) == len(set(jobs)) == session.job_count
        keys = {(j.board, j.copy, j.section) for j in jobs}
        assert len(keys) == len(jobs)  # what the journal keeps unique per run
        for section in session.sections:
            for copy, set_name in enumerate(section.sets, 1):
                boards = [j.board for j in jobs if j.set_name == set_name and j.section == section.name]
                assert boards == list(session.boards_of(section))
                assert all(j.copy == copy for j in jobs if j.set_name == set_name and j.section == section.name)


def test_the_whole_plan_view_keeps_the_session_order(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    assert [(s.name, len(jobs)) for s, jobs in plan.all_jobs()] == [("MON1", 20), ("MON2", 8)]


def test_an_unknown_session_name(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    with pytest.raises(PlanError, match="no session 'TUE1'"):
        plan.jobs("TUE1")


def test_sessions_written_as_one_table_are_refused(tmp_path: Path) -> None:
    text = BASE.replace("[[sessions]]", "[sessions]", 1)
    text = text[:text.index("[[sessions]]")]
    err = error_of(tmp_path, text)
    assert (err.field, err.line) == ("sessions", None)
    assert "write each entry under [[sessions]]" in str(err)


# --- any edit of a plan gives a plan or one located error ------------------------------------------

_VALUES = ['""', '"x"', '"1-3"', '"9-3"', "0", "-1", "3", "true", "[]", '["A1"]', "[1, 2]", "{}",
           '{ file = "none.pbn" }', '{ deals_of = "MON1" }', '"bigdeal"', '"sim://x"', '"board"', "1.5"]


@settings(max_examples=150, deadline=None)
@given(st.data())
def test_any_edit_of_a_plan_gives_a_plan_or_one_located_plan_error(data: st.DataObject) -> None:
    lines = BASE.splitlines()
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(lines) - 1))
        action = data.draw(st.sampled_from(["delete", "duplicate", "value"]))
        if action == "delete":
            del lines[i]
        elif action == "duplicate":
            lines.insert(i, lines[i])
        elif " = " in lines[i]:
            lines[i] = lines[i].split(" = ")[0] + " = " + data.draw(st.sampled_from(_VALUES))
    text = "\n".join(lines) + "\n"
    try:
        plan = Plan.loads(text, "congress.toml", base="/nonexistent-plan-folder")
    except PlanError as err:
        assert "\n" not in str(err)
        assert err.line is None or 1 <= err.line <= len(lines)
        assert str(err).startswith("congress.toml")
    else:
        assert all(s.job_count == len(s.jobs()) for s in plan.sessions)


def test_a_misspelt_source_kind_is_named(tmp_path: Path) -> None:
    check(tmp_path, edit('source = "shuffle"', 'source = { fiel = "old.pbn" }'), "sessions[2].source.fiel",
          "did you mean 'file'?")


def test_the_board_sets_to_label_cover_every_board_dealt_into_them(tmp_path: Path) -> None:
    plan = Plan.load(write(tmp_path, BASE))
    assert plan.board_sets() == {"A1": (1, 2, 3, 4, 5, 6, 7), "A2": (1, 2, 3, 4, 5, 6, 7), "RED": (1, 2, 3, 4),
                                 "BLUE": (1, 2, 3, 4), "GREEN": (1, 2, 3, 4), "C1": (6, 7)}


def test_an_owner_in_hex_is_any_bytes_and_stands_alone(tmp_path: Path) -> None:
    """owner_hex gives an owner's bytes in any code page (as Big Deal on Windows takes them); with owner
    too, or not hex, it is refused at its key."""
    plan = Plan.load(write(tmp_path, edit('owner = "Test Owner"', 'owner_hex = "5a fc 72 69 63 68"')))
    assert plan.event.owner == b"Z\xfcrich"
    check(tmp_path, edit('owner = "Test Owner"', 'owner = "Test Owner"\nowner_hex = "5afc"'), "event.owner_hex",
          "give owner or owner_hex, not both")
    check(tmp_path, edit('owner = "Test Owner"', 'owner_hex = "Zurich"'), "event.owner_hex", "must be hex digits")
