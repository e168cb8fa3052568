"""Flash and RAM of the C device library (`firmware_protocol/c`), beside its goals of 8 KiB and 1 KiB.

Built with ``-Os`` for a Cortex-M0 (``arm-none-eabi-gcc -mcpu=cortex-m0 -mthumb``) when that compiler is on
PATH, else for the host with ``cc`` (and said so: a host's figures are not a microcontroller's). Figures:

- flash: the ``text`` of the library's objects as ``size`` counts it (code and read-only data);
- RAM: the library's own ``data + bss`` (its static state), one ``dp_device`` (the state a firmware
  allocates, measured as the ``bss`` of an object holding one), and the deepest stack of any library
  call, from GCC's ``-fcallgraph-info=su`` (the firmware's own callbacks not included).

``memcpy``, ``memmove`` and ``memset`` come from the C library and are not counted. Named baselines: the
goals and the board's 256 KiB / 16 KiB (fixed figures, nothing to measure).

Where ``make``, ``arm-none-eabi-gcc`` and ``qemu-system-arm`` are at hand, the linked firmware image too
(``make -C firmware_protocol/c firmware``): its flash and static RAM, the library's share of its flash, and
the deepest stack measured at run time (the start-up code paints the stack; after a `dealer deal` of
16 boards through the emulated UART, the part no longer painted is read from the board's RAM), with the
boards an hour of that deal.

    python benchmarks/c_size.py [--quick]

``--quick`` builds for the first target found only; the full run builds for every one found.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
C_DIR = ROOT / "firmware_protocol" / "c"
SOURCES = sorted((C_DIR / "src").glob("*.c"))
FLASH_GOAL = 8 * 1024
RAM_GOAL = 1024
BOARD_FLASH = 256 * 1024
BOARD_RAM = 16 * 1024
ENTRY_POINTS = ("dp_device_start", "dp_device_receive", "dp_device_poll", "dp_device_send_event",
                "dp_device_send_notice")
"""The calls a firmware makes into the library's device link; the deepest of them sets the stack."""


@dataclass(frozen=True)
class Target:
    name: str
    compiler: str
    size_tool: str
    flags: tuple[str, ...]


CANDIDATES = (
    Target("Cortex-M0 (arm-none-eabi-gcc, Thumb)", "arm-none-eabi-gcc", "arm-none-eabi-size",
           ("-mcpu=cortex-m0", "-mthumb")),
    Target("the host (cc)", "cc", "size", ()),
)
BASE_FLAGS = ("-std=c99", "-Os", "-ffunction-sections", "-fdata-sections", f"-I{C_DIR / 'include'}")


def header() -> None:
    print("c_size: flash and RAM of the C device library (firmware_protocol/c), built with -Os")
    print("baselines (fixed goals, not measured):")
    print(f"  - flash goal: {FLASH_GOAL // 1024} KiB of code and read-only data")
    print(f"  - RAM goal: {RAM_GOAL // 1024} KiB: static state, one dp_device and the deepest stack of a call")
    print(f"  - board flash: {BOARD_FLASH // 1024} KiB of the nRF51 of QEMU's microbit (the firmware image)")
    print(f"  - board RAM: {BOARD_RAM // 1024} KiB of the same")
    print()
    sys.stdout.flush()


def available(quick: bool) -> list[Target]:
    found = [t for t in CANDIDATES if shutil.which(t.compiler) and shutil.which(t.size_tool)]
    return found[:1] if quick else found


def compile_one(target: Target, source: Path, out: Path, extra: tuple[str, ...] = ()) -> None:
    command = [target.compiler, *BASE_FLAGS, *target.flags, *extra, "-c", str(source), "-o", str(out)]
    run = subprocess.run(command, capture_output=True, text=True, cwd=out.parent)
    if run.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{run.stderr}")


def sizes(target: Target, objects: list[Path]) -> dict[str, tuple[int, int, int]]:
    """text, data, bss of each object (Berkeley format)."""
    run = subprocess.run([target.size_tool, *map(str, objects)], capture_output=True, text=True, check=True)
    out = {}
    for line in run.stdout.splitlines()[1:]:
        text, data, bss, _, _, name = line.split(maxsplit=5)
        out[Path(name).stem] = (int(text), int(data), int(bss))
    return out


def deepest_stack(graph_files: list[Path]) -> tuple[int, list[str]] | None:
    """The largest stack of any entry point, summed along its deepest call chain, and that chain; None
    if a function's stack is unknown or not static (then no honest figure can be given)."""
    frames: dict[str, int] = {}
    calls: dict[str, set[str]] = {}
    node = re.compile(r'node: \{ title: "([^"]+)" label: "[^"\\]*\\n[^"\\]*\\n(\d+) bytes \((\w+)\)"')
    edge = re.compile(r'edge: \{ sourcename: "([^"]+)" targetname: "([^"]+)"')
    for path in graph_files:
        text = path.read_text()
        for title, size, kind in node.findall(text):
            if kind != "static":
                return None
            frames[title] = int(size)
        for source, target in edge.findall(text):
            calls.setdefault(source, set()).add(target)

    def depth(function: str, seen: tuple[str, ...]) -> tuple[int, list[str]]:
        own = frames.get(function, 0)  # indirect calls, memcpy & co: not the library's
        best: tuple[int, list[str]] = (0, [])
        for callee in calls.get(function, ()):
            if callee not in seen:
                best = max(best, depth(callee, (*seen, callee)))
        name = "a callback of yours" if function == "__indirect_call" else function.rsplit(":", 1)[-1]
        return own + best[0], [name, *best[1]]

    return max(depth(entry, (entry,)) for entry in ENTRY_POINTS)


def measure(target: Target, folder: Path) -> None:
    objects = []
    try:
        for source in SOURCES:
            obj = folder / f"{source.stem}.o"
            compile_one(target, source, obj, ("-fcallgraph-info=su",))
            objects.append(obj)
        stack = deepest_stack(sorted(folder.glob("*.ci")))
    except RuntimeError:  # a compiler without -fcallgraph-info: sizes only
        objects = []
        for source in SOURCES:
            obj = folder / f"{source.stem}.o"
            compile_one(target, source, obj)
            objects.append(obj)
        stack = None
    probe = folder / "probe.c"
    probe.write_text('#include "dealer_proto.h"\ndp_device one_device;\n')
    compile_one(target, probe, folder / "probe.o", ("-fno-common",))
    table = sizes(target, objects)
    device = sum(sizes(target, [folder / "probe.o"])["probe"][1:])
    flash = sum(t for t, _, _ in table.values())
    static = sum(d + b for _, d, b in table.values())

    print(f"target: {target.name}")
    if target.compiler == "cc" and not shutil.which(CANDIDATES[0].compiler):
        print(f"  ({CANDIDATES[0].compiler} is not on PATH: these are the host's figures, not a Cortex-M0's)")
    for name, (text, data, bss) in table.items():
        print(f"  {name + '.c':<12} text {text:>6}  data {data:>4}  bss {bss:>4}")
    print(f"  flash: {flash:,} bytes = {flash / FLASH_GOAL:.0%} of the flash goal ({FLASH_GOAL:,})")
    ram = static + device
    parts = f"static {static} + one dp_device {device}"
    if stack is not None:
        ram += stack[0]
        parts += f" + deepest stack {stack[0]} ({' > '.join(stack[1])}: not included)"
    else:
        parts += " (no stack figure: the compiler gives no static call graph)"
    print(f"  RAM: {ram:,} bytes = {ram / RAM_GOAL:.0%} of the RAM goal ({RAM_GOAL:,}): {parts}")
    print()


def symbol_sizes(nm: str, files: list[Path], defined_only: bool = True) -> dict[str, int]:
    """Name -> size of the sized symbols of `files` (code, read-only and read-write data)."""
    run = subprocess.run([nm, "-S", *(["--defined-only"] if defined_only else []), *map(str, files)],
                         capture_output=True, text=True, check=True)
    out: dict[str, int] = {}
    for line in run.stdout.splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2].lower() in "tdrb":
            out[parts[3]] = out.get(parts[3], 0) + int(parts[1], 16)
    return out


def measure_firmware(folder: Path) -> None:
    """The linked firmware image's figures, and its deepest stack after dealing 16 boards under QEMU."""
    sys.path.insert(0, str(ROOT))
    from hil.qemu import FirmwareMachine

    made = subprocess.run(["make", "-s", "-C", str(C_DIR), "firmware", f"BUILD={folder}"], capture_output=True,
                          text=True)
    if made.returncode:
        print(f"firmware image: not built ({made.stderr.strip().splitlines()[-1:]})")
        return
    elf = folder / "firmware.elf"
    text, data, bss = sizes(CANDIDATES[0], [elf])["firmware"]
    lib_objects = []
    for source in SOURCES:
        obj = folder / f"lib-{source.stem}.o"
        compile_one(CANDIDATES[0], source, obj)
        lib_objects.append(obj)
    library = set(symbol_sizes("arm-none-eabi-nm", lib_objects))
    image = symbol_sizes("arm-none-eabi-nm", [elf])
    library_flash = sum(size for name, size in image.items() if name in library)
    machine = FirmwareMachine(elf, ["--set", "A", "--boards", "1-16"], link=folder / "machine")
    try:
        work = folder / "deal"
        work.mkdir()
        env = dict(os.environ, PYTHONPATH=str(ROOT), DEALER_HISTORY=str(work / "history.sqlite"), HOME=str(work))
        dealer = [sys.executable, "-m", "dealer"]
        for step in (["history", "init", str(work / "history.sqlite")],
                     ["generate", "--boards", "1-16", "-o", "s.pbn"]):
            subprocess.run([*dealer, *step], cwd=work, env=env, check=True, capture_output=True)
        dealt = subprocess.run([*dealer, "deal", "s.pbn", "--port", machine.path, "--journal", "j.db"], cwd=work,
                               env=env, capture_output=True, text=True, timeout=120)
        stack = machine.deepest_stack()
        stack_room = machine.symbols["__stack_top"] - machine.symbols["__stack_limit"]
        world = machine.symbols["__world_end"] - machine.symbols["__world_start"]
    finally:
        machine.stop()
    rate = re.search(r"([\d,]+) boards/hour", dealt.stdout)
    print("firmware image: firmware_protocol/c firmware (machine.c + the library + start-up), nRF51 under QEMU")
    print(f"  flash: {text + data:,} bytes = {(text + data) / BOARD_FLASH:.1%} of the board's ({BOARD_FLASH:,}); "
          f"the library's functions and tables in it {library_flash:,} = {library_flash / FLASH_GOAL:.0%} "
          f"of its goal ({FLASH_GOAL:,})")
    print(f"  RAM: static {data + bss:,} bytes (the library's dp_device inside it) + deepest stack measured "
          f"{stack:,} (of {stack_room:,} kept for it) = {data + bss + stack:,} = "
          f"{(data + bss + stack) / BOARD_RAM:.1%} of the board's ({BOARD_RAM:,}); the simulated rack and "
          f"operator: {world:,} more, outside the controller")
    if dealt.returncode == 0 and rate:
        print(f"  dealer deal of 16 boards through the emulated UART: {dealt.stdout.splitlines()[0]}; "
              f"{rate.group(1)} boards/hour (cards 2 ms, actions 5 ms, operator 10 ms: the machine is simulated)")
    else:
        print(f"  dealer deal failed ({dealt.returncode}): {dealt.stderr.strip()[-300:]}")
    print()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the first target found only")
    args = parser.parse_args(argv)
    header()
    targets = available(args.quick)
    if not targets:
        print("no C compiler (with its size tool) on PATH: no figures")
        return 0
    for target in targets:
        with tempfile.TemporaryDirectory() as folder:
            measure(target, Path(folder))
    if all(shutil.which(t) for t in ("make", "arm-none-eabi-gcc", "arm-none-eabi-nm", "qemu-system-arm")):
        with tempfile.TemporaryDirectory() as folder:
            measure_firmware(Path(folder))
    else:
        print("firmware image: no figures (make, arm-none-eabi-gcc or qemu-system-arm is not on PATH)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
