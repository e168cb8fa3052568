"""Deal generation on every core: the engines on N threads against one thread, against the AES bound,
against Big Deal's own program, and a very large file in bounded memory - all measured in one run.

    python benchmarks/generate_threads.py [--threads N] [--reps 7] [--bigdealx PATH] [--stream-boards 10000000]
                                          [--quick]

Sections:

1. In memory, n = 10**6 deals, deals/s of each engine with 1 thread and with N (default: what the
   engines use by default, one a CPU), round robin: every repetition times each variant once, medians.
   Each engine's deals with N threads are checked equal to those with 1, byte for byte.
2. The bound of the shuffle design: AES-256-CTR keystream (``cryptography``) over the same number of
   bytes the shuffle engine consumes for n deals (51 words of 4 bytes a deal), on 1 thread and on N
   threads, made as the engine makes its words (a chunk's worth at a time into a buffer each thread
   reuses), timed in the same rounds; printed as the share of that rate the engine reaches.
3. Whole process, PBN file of 100,000 boards from one seed and owner: ``dealer generate`` (the console
   command, default engine bigdeal, default threads) against ``bigdealx -h SEED -W OWNER`` writing the
   same PBN, round robin, each writing a new file, and whether both files hold the same deals. bigdealx
   is taken from --bigdealx, else PATH; without it there is no baseline and the section says so.
4. Streaming: ``dealer generate`` of --stream-boards boards (default 10**7) to a PBN file, as a whole
   process: its peak resident memory (VmHWM, read by the process at its end), its time, and the
   file's size; beside it the peak of the same command for 32 boards (the process's own footprint) and
   the size the deals alone would take in memory.

The machine is shared: the load average is printed at the start and the end, and ratios taken within a
round say more than absolute figures.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
from _support import header, run_bigdealx  # noqa: E402
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms, modes  # noqa: E402

from dealer import engines  # noqa: E402
from dealer.core.parallel import default_threads, map_spans  # noqa: E402
from dealer.engines.shuffle import PIECE, STEPS  # noqa: E402

SEEDS = {
    "shuffle": "5eed0000c0ffee11223344556677889900aabbccddeeff0123456789abcdef01",
    "bigdeal": "0123456789abcdef0123456789abcdef01234567",
}
OWNER = "dealer benchmark"
QUICK = {"n": 10**4, "reps": 2, "pbn_boards": 2000, "pbn_reps": 1, "stream_boards": 20_000}
TARGETS = {"shuffle": 16e6, "bigdeal": 2.5e6}  # deals/s in memory at n = 10**6
PBN_TARGET = 15.0  # bigdealx time / dealer generate time
STREAM_TARGET_MB = 200.0

Timed = Callable[[], object]


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def seconds(call: Timed) -> float:
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def fmt_rate(rate: float) -> str:
    return f"{rate / 1e6:.2f} M"


# ---- sections 1 and 2: in memory, and the AES bound ---------------------------------------------

def engine_call(name: str, threads: int, n: int) -> Timed:
    """One call of deals(n) from a fresh stream (the shuffle engine and its scratch space made once)."""
    engine = engines.make_engine(name, bytes.fromhex(SEEDS[name]), OWNER, threads=threads)
    if name == "shuffle":
        shuffle = engine
        return lambda: shuffle.deals_at(0, n)  # type: ignore[attr-defined]
    return lambda: engines.make_engine(name, bytes.fromhex(SEEDS[name]), OWNER, threads=threads).deals(n)


def ctr_call(total_bytes: int, threads: int) -> Timed:
    """AES-256-CTR keystream of `total_bytes` on `threads` threads, made as the shuffle engine makes its
    words: in pieces of PIECE deals' worth, each into a buffer its thread reuses."""
    key = bytes.fromhex(SEEDS["shuffle"])
    piece = PIECE * STEPS * 4
    zeros = bytes(piece)
    idle: queue.SimpleQueue[bytearray] = queue.SimpleQueue()

    def span(first: int, last: int) -> None:
        try:
            buffer = idle.get_nowait()
        except queue.Empty:
            buffer = bytearray(piece + 16)
        encryptor = Cipher(algorithms.AES(key), modes.CTR((first // 16).to_bytes(16, "big"))).encryptor()
        encryptor.update_into(memoryview(zeros)[:last - first], buffer)
        idle.put(buffer)

    return lambda: map_spans(span, total_bytes, piece, threads)


def in_memory(threads: int, reps: int, n: int) -> dict[str, float]:
    """Median seconds of each variant over `reps` round-robin repetitions; prints them."""
    keystream_bytes = n * STEPS * 4
    variants: dict[str, Timed] = {}
    for name in ("shuffle", "bigdeal"):
        one, many = engine_call(name, 1, n), engine_call(name, threads, n)
        same = np.array_equal(np.asarray(one()), np.asarray(many()))
        print(f"  {name}: deals with {threads} threads equal those with 1, byte for byte: {'yes' if same else 'NO'}")
        variants[f"{name}, 1 thread"] = one
        variants[f"{name}, {threads} threads"] = many
    variants["AES-256-CTR, 1 thread"] = ctr_call(keystream_bytes, 1)
    variants[f"AES-256-CTR, {threads} threads"] = ctr_call(keystream_bytes, threads)
    times: dict[str, list[float]] = {label: [] for label in variants}
    for _ in range(reps):
        for label, call in variants.items():
            times[label].append(seconds(call))
    medians = {label: statistics.median(series) for label, series in times.items()}
    print(f"\nIn memory, n = {n:,}, {reps} rounds, medians (min .. max):")
    for label, series in times.items():
        unit = (f"{keystream_bytes / medians[label] / 1e9:6.2f} GB/s of keystream ({keystream_bytes / 1e6:.0f} MB)"
                if label.startswith("AES") else f"{fmt_rate(n / medians[label])} deals/s")
        print(f"  {label:<26} {medians[label]:.3f} s ({min(series):.3f} .. {max(series):.3f})  {unit}")
    for name in ("shuffle", "bigdeal"):
        rate = n / medians[f"{name}, {threads} threads"]
        speedup = medians[f"{name}, 1 thread"] / medians[f"{name}, {threads} threads"]
        verdict = "met" if rate >= TARGETS[name] else "NOT met"
        print(f"  {name}: {threads} threads {speedup:.2f}x one thread; {fmt_rate(rate)} deals/s "
              f"(target >= {fmt_rate(TARGETS[name])}: {verdict})")
    for count in (1, threads):
        engine = medians[f"shuffle, {count} thread{'s' if count > 1 else ''}"]
        bound = medians[f"AES-256-CTR, {count} thread{'s' if count > 1 else ''}"]
        print(f"  shuffle engine on {count} thread(s) reaches {100 * bound / engine:.0f}% of the AES-256-CTR "
              f"keystream rate on {count} thread(s) over the same {keystream_bytes / 1e6:.0f} MB "
              f"(the bound of this design: {fmt_rate(n / bound)} deals/s)")
    return medians


# ---- section 3: whole process against bigdealx --------------------------------------------------

def find_bigdealx(option: str | None) -> str | None:
    """--bigdealx, else bigdealx on PATH."""
    for place in (option, shutil.which("bigdealx")):
        if place and os.access(place, os.X_OK):
            return place
    return None


def dealer_command() -> list[str]:
    """The console script beside this interpreter (as a user runs it), else python -m dealer."""
    script = Path(sys.executable).parent / "dealer"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "dealer"]


def child_env() -> dict[str, str]:
    """This environment less PYTHONDONTWRITEBYTECODE: the first (untimed) run caches the bytecode, as an
    install does."""
    return {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def run_dealer(args: list[str], folder: Path) -> float:
    """Wall seconds of one `dealer` process (the console command)."""
    start = time.perf_counter()
    run = subprocess.run([*dealer_command(), *args], cwd=folder, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=child_env())
    elapsed = time.perf_counter() - start
    if run.returncode:
        raise RuntimeError(f"dealer {' '.join(args)} failed ({run.returncode}): {run.stderr.decode()[-300:]}")
    return elapsed


# Runs the command line in this interpreter and reports the process's own peak resident memory (VmHWM,
# which a new program starts afresh; the rusage of a child would also count the parent's pages it
# held between fork and exec).
PEAK_PROBE = """
import re, runpy, sys
sys.argv = ["dealer", *sys.argv[1:]]
try:
    runpy.run_module("dealer", run_name="__main__")
except SystemExit as exit:
    code = exit.code
with open("/proc/self/status") as status:
    peak = int(re.search(r"VmHWM:\\s+(\\d+) kB", status.read()).group(1)) * 1024
print("peak", peak, file=sys.stderr)
sys.exit(code)
"""


def run_dealer_peak(args: list[str], folder: Path) -> tuple[float, int]:
    """Wall seconds and peak resident memory (bytes) of one `dealer` process."""
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-c", PEAK_PROBE, *args], cwd=folder, stdin=subprocess.DEVNULL,
                         stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=child_env())
    elapsed = time.perf_counter() - start
    if run.returncode:
        raise RuntimeError(f"dealer {' '.join(args)} failed ({run.returncode}): {run.stderr[-300:]}")
    return elapsed, int(run.stderr.split()[-1])


def deal_tags(path: Path) -> list[str]:
    """The Deal tags of a PBN file, each rewritten to start with North (the first seat may vary)."""
    out = []
    for tag in re.findall(r'^\[Deal "([^"]*)"\]', path.read_text(encoding="latin-1"), flags=re.M):
        first, _, hands = tag.partition(":")
        shift, listed = "NESW".index(first.strip().upper()), hands.split()
        out.append(" ".join(listed[(k - shift) % 4] for k in range(4)))
    return out


def whole_process(binary: str | None, reps: int, boards: int) -> None:
    print(f"\nWhole process: PBN file of {boards:,} boards, bigdeal engine, one seed and owner "
          f"({reps} rounds, each command once a round, in turn)")
    # the command: a new file (no --force), as bigdealx writes one in a fresh folder each round; the
    # last round's file is removed before the clock starts, or its 30 MB deletion would count as our time
    args = ["generate", "--boards", f"1-{boards}", "--seed", SEEDS["bigdeal"], "--owner", OWNER, "-o", "ours.pbn"]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        run_dealer(args, folder)  # warm
        ours: list[float] = []
        theirs: list[float] = []
        bx_file: Path | None = None
        for rep in range(reps):
            if binary:
                seconds_taken, bx_file = run_bigdealx(binary, SEEDS["bigdeal"], OWNER, boards, "pbn",
                                                      folder / f"bx{rep}")
                theirs.append(seconds_taken)
            (folder / "ours.pbn").unlink()
            ours.append(run_dealer(args, folder))
        mid = statistics.median(ours)
        print(f"  dealer generate (default threads)  median {mid:.3f} s (min {min(ours):.3f}, max {max(ours):.3f}; "
              f"{fmt_rate(boards / mid)} deals/s)")
        if not binary or bx_file is None:
            print("  no baseline: bigdealx is not on PATH (nor given with --bigdealx); no ratio")
            return
        print(f"  bigdealx ({binary})  median {statistics.median(theirs):.3f} s "
              f"(min {min(theirs):.3f}, max {max(theirs):.3f})")
        ratios = [b / o for b, o in zip(theirs, ours, strict=True)]
        ratio = statistics.median(ratios)
        print(f"  bigdealx time / dealer generate time: median {ratio:.1f}x (min {min(ratios):.1f}x, "
              f"max {max(ratios):.1f}x; target >= {PBN_TARGET:g}x: {'met' if ratio >= PBN_TARGET else 'NOT met'})")
        same = deal_tags(bx_file) == deal_tags(folder / "ours.pbn")
        print(f"  same deals in the same order in both files: {'yes' if same else 'NO'}")


# ---- section 4: streaming ----------------------------------------------------------------------

def streaming(boards: int) -> None:
    print(f"\nStreaming: dealer generate of {boards:,} boards to PBN (default engine and threads), whole process")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        _, small = run_dealer_peak(["generate", "--boards", "1-32", "-o", "small.pbn"], folder)
        elapsed, peak = run_dealer_peak(["generate", "--boards", f"1-{boards}", "-o", "big.pbn"], folder)
        size = (folder / "big.pbn").stat().st_size
    verdict = "met" if peak / 1e6 <= STREAM_TARGET_MB else "NOT met"
    print(f"  peak resident memory {peak / 1e6:.0f} MB (target <= {STREAM_TARGET_MB:.0f} MB: {verdict}); "
          f"{elapsed:.1f} s ({fmt_rate(boards / elapsed)} deals/s); file {size / 1e9:.2f} GB")
    print(f"  the same command for 32 boards peaks at {small / 1e6:.0f} MB; {boards:,} deals alone would take "
          f"{boards * 52 / 1e6:.0f} MB in memory")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=default_threads(),
                        help="threads for the N-thread figures (default: the engines' default)")
    parser.add_argument("--n", type=int, default=10**6, help="deals in memory (default 10**6)")
    parser.add_argument("--reps", type=int, default=7, help="rounds in memory (default 7)")
    parser.add_argument("--pbn-boards", type=int, default=100_000, help="boards of the whole-process section")
    parser.add_argument("--pbn-reps", type=int, default=5, help="rounds of the whole-process section (default 5)")
    parser.add_argument("--bigdealx", metavar="PATH", help="Big Deal's bigdealx (else the one on PATH)")
    parser.add_argument("--stream-boards", type=int, default=10**7, help="boards of the streaming section")
    parser.add_argument("--quick", action="store_true", help="tiny sizes (checks the script runs)")
    args = parser.parse_args(argv)
    if args.quick:
        for name, value in QUICK.items():
            setattr(args, name, value)
    import cryptography

    binary = find_bigdealx(args.bigdealx)
    header("Deal generation on every core: N threads against one, against the AES bound and Big Deal", {
        "one thread": "each engine with threads=1, in the same rounds",
        "AES-256-CTR keystream": f"cryptography {cryptography.__version__}'s AES-256-CTR over the bytes the "
                                 "shuffle engine consumes, on 1 and N threads",
        "bigdealx": f"Big Deal writing the same PBN ({binary})" if binary else "Big Deal writing the same PBN: "
                    "not found",
        "32-board run": "dealer generate of 32 boards: the process's own memory",
    }, f"threads N = {args.threads}; {os.cpu_count()} CPUs; load average {load()}")
    in_memory(args.threads, args.reps, args.n)
    whole_process(binary, args.pbn_reps, args.pbn_boards)
    streaming(args.stream_boards)
    print(f"\nload average at the end: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
