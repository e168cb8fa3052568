"""The bigdeal engine reproduces what Big Deal published: the WBG 2024 sessions, number by number."""

from __future__ import annotations

import base64
import hashlib
import re
from pathlib import Path

import numpy as np
import pytest

from dealer import engines
from dealer.core import godel
from dealer.core.cards import from_pbn
from dealer.engines import bigdeal, ripemd160

WBG = Path(__file__).resolve().parent.parent / "data" / "squaredeal" / "WBG2024"
# session file -> (phase, session) of WBG2024.sqd: FIN is phase 7, SF phase 6, QF phase 5
SESSIONS = {"FIN1": "7,1", "FIN2": "7,2", "FIN3": "7,3", "FIN4": "7,4", "FIN5": "7,5", "FIN6": "7,6",
            "QF1": "5,1", "QF2": "5,2", "SF1": "6,1"}
DV = "43275.91"


def session_key(ident: str) -> str:
    for line in (WBG / "WBG2024.sqk").read_bytes().decode().splitlines():
        name, _, key = line.partition(":")
        if name == ident:
            return key
    raise KeyError(ident)


def squaredeal_seed_and_owner(key: str, word: str = "original") -> tuple[bytes, str]:
    """SquareDeal's call of bigdealx, restated: -W first half, -e second half + base64(DV) + word."""
    half = len(key) // 2
    entropy = key[half:] + base64.b64encode(DV.encode()).decode() + word
    return ripemd160.ripemd160(entropy.encode()), key[:half]


def read_goe(path: Path) -> list[int]:
    return [int(line.replace(",", "")) for line in path.read_text().split("\n") if line.strip()]


@pytest.mark.parametrize("session", sorted(SESSIONS))
def test_squaredeal_sessions_give_the_published_numbers_and_deals(session: str) -> None:
    seed, owner = squaredeal_seed_and_owner(session_key(SESSIONS[session]))
    engine = bigdeal.BigDealEngine(seed, owner)
    assert engine.numbers(16) == read_goe(WBG / f"{session}.goe")
    expected = [from_pbn(d) for d in re.findall(r'\[Deal "([^"]+)"\]', (WBG / f"{session}.pbn").read_text())]
    assert np.array_equal(bigdeal.BigDealEngine(seed, owner).deals(16), np.array(expected))


def test_fallback_hash_gives_the_same_deals_as_hashlib() -> None:
    seed, owner = squaredeal_seed_and_owner(session_key("7,1"))
    forced = bigdeal.BigDealEngine(seed, owner, use_hashlib=False)
    assert forced.numbers(16) == read_goe(WBG / "FIN1.goe")
    rng = np.random.default_rng(9)
    for _ in range(3):
        seed = rng.bytes(20)
        a = bigdeal.BigDealEngine(seed, "Owner ü", use_hashlib=False).deals(500)
        if bigdeal.hashlib_has_ripemd160():
            assert np.array_equal(a, bigdeal.BigDealEngine(seed, "Owner ü", use_hashlib=True).deals(500))


@pytest.mark.skipif(not bigdeal.hashlib_has_ripemd160(), reason="hashlib offers no RIPEMD-160 here")
def test_default_mix_of_hashlib_and_numpy_batches_is_the_hashlib_stream() -> None:
    # small calls hash through hashlib, large ones through numpy; the stream must not notice
    seed = bytes(range(20))
    mixed = bigdeal.BigDealEngine(seed, "Owner")
    plain = bigdeal.BigDealEngine(seed, "Owner", use_hashlib=True)
    for count in (3, 5000, 1, 70_000, 2999, 17):
        assert np.array_equal(mixed.deals(count), plain.deals(count)), count
    assert mixed.counter == plain.counter


def test_engine_falls_back_when_hashlib_lacks_ripemd160(monkeypatch: pytest.MonkeyPatch) -> None:
    seed, owner = squaredeal_seed_and_owner(session_key("5,2"))
    real_new = hashlib.new

    def no_ripemd(name: str, *args: object, **kwargs: object) -> object:
        if name.lower() == "ripemd160":
            raise ValueError("unsupported hash type ripemd160")
        return real_new(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(hashlib, "new", no_ripemd)
    assert not bigdeal.hashlib_has_ripemd160()
    engine = bigdeal.BigDealEngine(seed, owner)
    assert engine.numbers(16) == read_goe(WBG / "QF2.goe")


def test_state_is_kept_between_calls() -> None:
    seed = bytes(range(20))
    whole = bigdeal.BigDealEngine(seed, "club").deals(16)
    engine = bigdeal.BigDealEngine(seed, "club")
    parts = [engine.deals(n) for n in (8, 0, 1, 7)]
    assert np.array_equal(np.concatenate(parts), whole)


def test_large_batches_continue_the_same_stream() -> None:
    seed = bytes(range(100, 120))
    whole = bigdeal.BigDealEngine(seed, "x").numbers(70_000)
    engine = bigdeal.BigDealEngine(seed, "x")
    assert engine.numbers(69_990) + engine.numbers(10) == whole
    assert all(0 <= g < godel.DEAL_COUNT for g in whole)


def test_stream_matches_a_direct_restatement_of_the_algorithm() -> None:
    seed = bytes.fromhex("00112233445566778899aabbccddeeff01234567")
    owner_hash = ripemd160.ripemd160(b"Joe Blow, Dealville")
    expected: list[int] = []
    counter = 0
    while len(expected) < 40:
        counter += 1
        digest = ripemd160.ripemd160(counter.to_bytes(4, "little") + seed + owner_hash)
        candidate = int.from_bytes(digest[:12], "big")
        if candidate < godel.DEAL_COUNT:
            expected.append(candidate)
    engine = bigdeal.BigDealEngine(seed, "Joe Blow, Dealville")
    assert engine.numbers(40) == expected
    assert engine.counter == counter + 1


def test_owner_changes_the_stream() -> None:
    seed = bytes(20)
    assert bigdeal.BigDealEngine(seed, "a").numbers(4) != bigdeal.BigDealEngine(seed, "b").numbers(4)


def test_registry_builds_the_engine() -> None:
    seed = engines.parse_seed("bigdeal", "ab" * 20)
    engine = engines.make_engine("bigdeal", seed, "owner")
    assert engine.name == "bigdeal"
    assert np.array_equal(engine.deals(3), bigdeal.BigDealEngine(seed, "owner").deals(3))


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="20 bytes"):
        bigdeal.BigDealEngine(b"short", "x")
    with pytest.raises(ValueError, match="cannot take"):
        bigdeal.BigDealEngine(bytes(20), "x").deals(-1)


def test_vectorised_split_of_candidates_is_exact() -> None:
    """The float estimate plus uint64 correction equals Python's exact divmod, also at the edges."""
    rng = np.random.default_rng(11)
    unit = godel.C39 * godel.C26
    numbers = [int.from_bytes(rng.bytes(12), "big") % godel.DEAL_COUNT for _ in range(50_000)]
    for k in (0, 1, 2, godel.C52 // 2, godel.C52 - 1):
        numbers += [g for d in (-2, -1, 0, 1, 2) if 0 <= (g := k * unit + d) < godel.DEAL_COUNT]
    numbers += [godel.DEAL_COUNT - 1, 2**64 - 1, 2**64, 2**64 + 1]
    high = np.array([g >> 64 for g in numbers], dtype=np.uint64)
    low = np.array([g & (2**64 - 1) for g in numbers], dtype=np.uint64)
    parts = bigdeal.candidates_to_parts(high, low)
    assert np.array_equal(parts, godel.split_numbers(numbers))


def test_candidates_at_or_above_the_deal_count_are_rejected() -> None:
    values = [0, godel.DEAL_COUNT - 1, godel.DEAL_COUNT, 2**96 - 1, 2**95]
    digests = b"".join(v.to_bytes(12, "big") + bytes(8) for v in values)
    index, high, low = bigdeal.accepted_candidates(digests)
    assert index.tolist() == [0, 1, 4]
    joined = [(int(h) << 64) | int(lo) for h, lo in zip(high, low, strict=True)]
    assert joined == [values[0], values[1], values[4]]
