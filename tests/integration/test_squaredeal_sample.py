"""A sample of the one-byte-change sweep of the published WBG 2024 session files (`tests.support.squaredeal_sweep`;
whole: ``python -m tests.stress.squaredeal_sweep``): in every session, the changes of one game in eight (drawn
with a fixed seed) and an eighth of those to verify, field by field, each change that changes a board refused
naming the board and the field."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.support.squaredeal_sweep import SESSIONS, sweep

SHARE = 1 / 8


@pytest.mark.parametrize("session", SESSIONS)
def test_an_eighth_of_the_one_byte_changes_of_a_board_are_refused_naming_it(session: str, tmp_path: Path) -> None:
    swept = sweep(session, tmp_path, share=SHARE, seed=20261202)
    print(swept.text())
    assert swept.fields.get("board number", 0) >= 3 and swept.fields.get("deal", 0) >= 3, swept.text()
    assert swept.failures == [], "\n".join([swept.text(), *swept.failures[:10]])
