"""A script in the `dealer` language read into a `Script`: its condition as a tree of `Node`s (variables
already put in place, as the reference program does), and its other statements. The grammar is
the file dealer.lark beside this module, read by Lark (LALR); a syntax error, an unknown or redefined variable
and a feature this project does not evaluate are each one `ScriptError` naming the script, line and column.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from math import comb
from pathlib import Path
from typing import Any, Final

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from dealer.core.cards import RANKS, SEATS, SUITS
from dealer.core.errors import FormatError, UsageError
from dealer.language import _

MAX_SCRIPT_BYTES: Final = 1 << 20
"""The largest script read (1 MiB; the largest real scripts are a few kilobytes)."""
MAX_DIGITS: Final = 9
"""The most digits of a number in a script (the reference program's numbers are C ints)."""
MAX_FREQUENCY_ROWS: Final = 1000
"""The most values between a frequency's bounds."""

SUIT_WORDS: Final = {"spade": 0, "heart": 1, "diamond": 2, "club": 3}
SEAT_WORDS: Final = {"north": 0, "east": 1, "south": 2, "west": 3}
VULNERABILITIES: Final = {"none": "None", "ns": "NS", "ew": "EW", "all": "All"}
COUNT_NAMES: Final = {"ten": 0, "jack": 1, "queen": 2, "king": 3, "ace": 4, "top2": 5, "top3": 6, "top4": 7,
                      "top5": 8, "c13": 9}
"""The alternate counts' readable names: pt0 .. pt9."""


class ScriptError(UsageError):
    """A script that cannot be run: one line naming the script, the line and column, and why (exit 2)."""

    def __init__(self, reason: str, name: str, line: int | None = None, column: int | None = None) -> None:
        self.reason, self.name, self.line, self.column = reason, name, line, column
        where = name if line is None else _("{script}, line {line}, column {column}").format(
            script=name, line=line, column=column)
        super().__init__(f"{where}: {reason}")


@dataclass(frozen=True)
class Node:
    """One node of an expression: its kind, its arguments (nodes or plain values) and where it starts."""

    kind: str
    args: tuple[Any, ...]
    line: int = 0
    column: int = 0

    def __repr__(self) -> str:
        return f"{self.kind}{self.args!r}"


@dataclass(frozen=True)
class ScriptAction:
    """An action of the script: a statistic (average, frequency, frequency2) or the deals' printing."""

    kind: str
    label: str | None
    exprs: tuple[Node, ...]
    bounds: tuple[int, ...] = ()


@dataclass
class Script:
    """What a script says: the condition (None: every deal), the statements, the actions, in its words."""

    name: str
    text: str
    condition: Node | None = None
    generate: int | None = None
    produce: int | None = None
    dealer: int | None = None
    vulnerable: str | None = None
    predeal: dict[int, list[int]] = field(default_factory=dict)
    pointcount: tuple[int, ...] | None = None
    altcounts: dict[int, tuple[int, ...]] = field(default_factory=dict)
    actions: list[ScriptAction] = field(default_factory=list)
    prints: list[str] = field(default_factory=list)
    variables: dict[str, Node] = field(default_factory=dict)
    condition_text: str = ""
    definitions: dict[str, str] = field(default_factory=dict)

    def summary(self) -> str:
        """The condition in one line of the script's own words, after the definitions it stands on (comments
        dropped): what a file made under it says it was made under."""
        parts = [f"{name} = {text}" for name, text in self.definitions.items()] + [self.condition_text or "1"]
        return "; ".join(" ".join(_condition_text(part).split()) for part in parts)


UNSUPPORTED: Final = {
    "tricks": "tricks", "score": "score", "imps": "imps", "rnd": "rnd",
    "printes": "printes", "evalcontract": "evalcontract", "predeal_length": "predeal of a suit's length",
}
"""Features read by the grammar and refused by name: double dummy (tricks, score, imps), random numbers in a
condition, the per-deal printing of expressions, and predeal's biased suit lengths."""


@lru_cache(maxsize=1)
def parser() -> Lark:
    """The grammar, built once; its tables are kept between runs in the user's own cache folder (`_tables_file`),
    which Lark checks against the grammar before it uses them."""
    grammar = (Path(__file__).with_name("dealer.lark")).read_text(encoding="utf-8")
    return Lark(grammar, parser="lalr", lexer="contextual", propagate_positions=True, maybe_placeholders=True,
                cache=_tables_file() or False)


def _tables_file() -> str | None:
    """Where the parser's tables are kept: a folder of the user's cache that only the user can write (what is
    read back from it is loaded as Python objects), None if there is none to be had."""
    import platformdirs

    from dealer.core.osys import owned_by_user

    folder = Path(platformdirs.user_cache_dir("dealer", appauthor=False))
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        st = folder.lstat()
    except OSError:
        return None
    if not folder.is_dir() or folder.is_symlink() or st.st_mode & 0o022 or not owned_by_user(st):
        return None
    return str(folder / "script-grammar.tables")


def read_script(path: str | Path) -> Script:
    """The script in a file: at most `MAX_SCRIPT_BYTES`, UTF-8 or else Latin-1 text (comments may hold any)."""
    p = Path(path)
    try:
        size = p.stat().st_size
        if size > MAX_SCRIPT_BYTES:
            raise FormatError(_("a script is at most {most} bytes; this one is {size}").format(
                most=MAX_SCRIPT_BYTES, size=size), p)
        data = p.read_bytes()[:MAX_SCRIPT_BYTES + 1]
    except OSError as exc:
        raise FormatError(_("cannot read the script: {reason}").format(reason=exc.strerror or exc), p) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = data.decode("latin-1")
    return parse_script(text, str(path))


def parse_script(text: str, name: str = "--where") -> Script:
    """The `Script` a text says; `ScriptError` (exit 2) on the first thing wrong with it."""
    if len(text.encode("utf-8")) > MAX_SCRIPT_BYTES:
        raise FormatError(_("a script is at most {most} bytes").format(most=MAX_SCRIPT_BYTES), name)
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if not text.endswith("\n"):
        text += "\n"
    try:
        tree = parser().parse(text)
    except UnexpectedInput as exc:
        raise ScriptError(_syntax_reason(exc), name, exc.line, exc.column) from None
    script = Script(name, text)
    try:
        _Reader(script).visit(tree)
    except VisitError as exc:
        if isinstance(exc.orig_exc, (ScriptError, FormatError)):
            raise exc.orig_exc from None
        raise
    return script


def _syntax_reason(exc: UnexpectedInput) -> str:
    if isinstance(exc, UnexpectedEOF):
        return _("syntax error: the script ends in the middle of a statement")
    if isinstance(exc, UnexpectedCharacters):
        shown = exc.char if exc.char.isprintable() else repr(exc.char)
        if exc.char == "#":
            return _("syntax error: '#' starts a comment only at the beginning of a line (use // after code)")
        if exc.char == "/":
            return _("syntax error: a comment /* is never closed")
        return _("syntax error at {text}").format(text=repr(shown))
    if isinstance(exc, UnexpectedToken):
        if exc.token.type == "$END":
            return _("syntax error: the script ends in the middle of a statement")
        return _("syntax error at {text}").format(text=repr(str(exc.token)))
    return _("syntax error")


class _Reader:
    """Walks the statements in order, as the reference program reads them, into a `Script`."""

    def __init__(self, script: Script) -> None:
        self.script = script

    def error(self, reason: str, meta: Any) -> ScriptError:
        line = getattr(meta, "line", None)
        column = getattr(meta, "column", None)
        return ScriptError(reason, self.script.name, line, column)

    def visit(self, tree: Tree[Any]) -> None:
        for statement in tree.children:
            getattr(self, "s_" + statement.data)(statement)

    # statements
    def s_generate(self, t: Tree[Any]) -> None:
        if self.script.generate is None:  # the reference keeps the first
            self.script.generate = self.positive(t.children[0], "generate")

    def s_produce(self, t: Tree[Any]) -> None:
        if self.script.produce is None:
            self.script.produce = self.positive(t.children[0], "produce")

    def s_dealer(self, t: Tree[Any]) -> None:
        self.script.dealer = SEAT_WORDS[_word(t.children[0])]

    def s_vulnerable(self, t: Tree[Any]) -> None:
        self.script.vulnerable = VULNERABILITIES[str(t.children[0]).lower()]

    def s_predeal(self, t: Tree[Any]) -> None:
        for arg in t.children:
            if arg.data == "predeal_length":
                raise self.error(_refused("predeal_length"), arg.meta)
            seat = SEAT_WORDS[_word(arg.children[0])]
            for holding in arg.children[1:]:
                if str(holding) == ",":
                    continue
                text = str(holding)
                suit = SUITS.index(text[0])
                for rank in text[1:]:
                    card = suit * 13 + RANKS.index(rank)
                    if any(card in cards for cards in self.script.predeal.values()):
                        raise self.error(_("predeal gives the card {card} twice").format(card=text[0] + rank), holding)
                    self.script.predeal.setdefault(seat, []).append(card)
                if len(self.script.predeal.get(seat, [])) > 13:
                    raise self.error(_("predeal gives {seat} more than 13 cards").format(seat=SEATS[seat]), holding)

    def s_pointcount(self, t: Tree[Any]) -> None:
        self.script.pointcount = self.count_table(t.children, t.meta)

    def s_altcount(self, t: Tree[Any]) -> None:
        which = self.number(t.children[0])
        if not 0 <= which <= 9:
            raise self.error(_("altcount numbers the counts 0 to 9; got {n}").format(n=which), t.meta)
        self.script.altcounts[which] = self.count_table(t.children[1:], t.meta)

    def count_table(self, numbers: list[Any], meta: Any) -> tuple[int, ...]:
        values = [self.number(n) for n in numbers if n is not None]
        if len(values) > 13:
            raise self.error(_("a count gives at most 13 values, ace to two"), meta)
        return tuple(values + [0] * (13 - len(values)))

    def s_condition(self, t: Tree[Any]) -> None:
        self.script.condition = self.expr(t.children[0])
        self.script.condition_text = self.source(t.children[0])

    def source(self, t: Any) -> str:
        meta = t if isinstance(t, Token) else t.meta
        return self.script.text[meta.start_pos:meta.end_pos]

    def s_define(self, t: Tree[Any]) -> None:
        name = str(t.children[0])
        if name in self.script.variables:
            raise self.error(_("the variable {name} is defined twice").format(name=name), t.children[0])
        self.script.variables[name] = self.expr(t.children[1])
        self.script.definitions[name] = self.source(t.children[1])

    def s_actions(self, t: Tree[Any]) -> None:
        self.script.actions = []
        self.script.prints = []
        for action in t.children:
            if action is None:
                continue
            kind = action.data
            if kind in UNSUPPORTED:
                raise self.error(_refused(kind), action.meta)
            if kind == "print_deals":
                self.script.prints.append(str(action.children[0]))
            elif kind == "print_line":
                if action.children[1] is not None:
                    raise self.error(_("{action} with an expression is not supported: the deals go to the output "
                                       "file").format(action=str(action.children[0])), action.meta)
                self.script.prints.append(str(action.children[0]))
            elif kind == "print_seats":
                self.script.prints.append("print")
            elif kind == "average":
                self.script.actions.append(ScriptAction("average", _label(action.children[0]),
                                                  (self.expr(action.children[1]),)))
            elif kind == "frequency":
                label, expr, low, high = action.children
                self.script.actions.append(ScriptAction("frequency", _label(label), (self.expr(expr),),
                                                        self.bounds(low, high, action.meta)))
            elif kind == "frequency2":
                label, e1, l1, h1, e2, l2, h2 = action.children
                bounds = self.bounds(l1, h1, action.meta) + self.bounds(l2, h2, action.meta)
                pair = (self.expr(e1), self.expr(e2))
                self.script.actions.append(ScriptAction("frequency2", _label(label), pair, bounds))

    def bounds(self, low: Tree[Any], high: Tree[Any], meta: Any) -> tuple[int, int]:
        lo, hi = self.number(low), self.number(high)
        if hi < lo or hi - lo + 1 > MAX_FREQUENCY_ROWS:
            raise self.error(_("a frequency's bounds must be low to high, at most {most} values; got {low} to "
                               "{high}").format(most=MAX_FREQUENCY_ROWS, low=lo, high=hi), meta)
        return lo, hi

    # numbers
    def number(self, t: Tree[Any]) -> int:
        sign, digits = (t.children + [None])[:2] if len(t.children) == 2 else (None, t.children[0])
        text = str(digits)
        if len(text) > MAX_DIGITS:
            raise FormatError(_("a number in a script has at most {most} digits; got {n}").format(
                most=MAX_DIGITS, n=len(text)), self.script.name, line=getattr(digits, "line", None))
        value = int(text)
        return -value if sign is not None else value

    def positive(self, t: Tree[Any], what: str) -> int:
        value = self.number(t)
        if value < 1:
            raise self.error(_("{what} needs a number from 1; got {n}").format(what=what, n=value), t.meta)
        return value

    # expressions
    def expr(self, t: Any) -> Node:
        if isinstance(t, Token):  # an IDENT reached through a rule inlined away
            return self.variable(t)
        method = getattr(self, "e_" + t.data, None)
        if method is None:
            raise self.error(_refused(t.data), t.meta)
        node: Node = method(t)
        return node

    def node(self, kind: str, args: tuple[Any, ...], meta: Any) -> Node:
        return Node(kind, args, getattr(meta, "line", 0), getattr(meta, "column", 0))

    def variable(self, token: Token) -> Node:
        try:
            return self.script.variables[str(token)]
        except KeyError:
            raise self.error(_("unknown variable {name}").format(name=str(token)), token) from None

    def e_variable(self, t: Any) -> Node:
        return self.variable(t.children[0])

    def e_literal(self, t: Tree[Any]) -> Node:
        return self.node("number", (self.number(t.children[0]),), t.meta)

    def e_choose(self, t: Tree[Any]) -> Node:
        return self.node("choose", tuple(self.expr(c) for c in t.children), t.meta)

    def e_or_(self, t: Tree[Any]) -> Node:
        return self.node("or", (self.expr(t.children[0]), self.expr(t.children[-1])), t.meta)

    def e_and_(self, t: Tree[Any]) -> Node:
        return self.node("and", (self.expr(t.children[0]), self.expr(t.children[-1])), t.meta)

    def e_not_(self, t: Tree[Any]) -> Node:
        return self.node("not", (self.expr(t.children[-1]),), t.meta)

    def e_arith(self, t: Tree[Any]) -> Node:
        left, op, right = t.children
        return self.node(str(op), (self.expr(left), self.expr(right)), t.meta)

    def e_length(self, t: Tree[Any]) -> Node:
        suit, seat = _suit(t.children[0]), SEAT_WORDS[_word(t.children[1])]
        return self.node("length", (seat, suit), t.meta)

    def e_count(self, t: Tree[Any]) -> Node:
        word, seat, suit = t.children
        name = str(word)[:-1] if str(word).endswith("s") else str(word)
        if name.startswith("pt"):
            table = int(name[2])
        elif name == "hcp":
            table = -1
        else:
            table = COUNT_NAMES[name]
        return self.node("count", (table, SEAT_WORDS[_word(seat)], None if suit is None else _suit(suit)), t.meta)

    def e_losers(self, t: Tree[Any]) -> Node:
        _word_, seat, suit = t.children
        return self.node("losers", (SEAT_WORDS[_word(seat)], None if suit is None else _suit(suit)), t.meta)

    def e_controls(self, t: Tree[Any]) -> Node:
        _word_, seat, suit = t.children
        return self.node("controls", (SEAT_WORDS[_word(seat)], None if suit is None else _suit(suit)), t.meta)

    def e_cccc(self, t: Tree[Any]) -> Node:
        return self.node("cccc", (SEAT_WORDS[_word(t.children[0])],), t.meta)

    def e_quality(self, t: Tree[Any]) -> Node:
        seat, suit = t.children
        return self.node("quality", (SEAT_WORDS[_word(seat)], _suit(suit)), t.meta)

    def e_hascard(self, t: Tree[Any]) -> Node:
        seat, card = t.children
        text = str(card)
        return self.node("hascard", (SEAT_WORDS[_word(seat)], SUITS.index(text[1]) * 13 + RANKS.index(text[0])),
                         t.meta)

    def e_shape(self, t: Tree[Any]) -> Node:
        seat = SEAT_WORDS[_word(t.children[0])]
        chosen: set[tuple[int, ...]] = set()
        for item in t.children[1:]:
            sign, any_, pattern = item.children
            shapes = _shapes(str(pattern), any_ is not None)
            if not shapes and "x" not in str(pattern):
                raise self.error(_("the shape {shape} does not hold 13 cards").format(shape=str(pattern)), item.meta)
            if sign is not None and str(sign) == "-":
                chosen -= shapes
            else:
                chosen |= shapes
        return self.node("shape", (seat, frozenset(chosen)), t.meta)


def _refused(kind: str) -> str:
    return _("{feature} is not supported here: prepared boards use the condition, statistics and the deals "
             "themselves").format(feature=UNSUPPORTED.get(kind, kind))


def _word(t: Tree[Any] | Token) -> str:
    token = t.children[0] if isinstance(t, Tree) else t
    return str(token)


def _suit(t: Tree[Any]) -> int:
    return SUIT_WORDS[_word(t).rstrip("s")]


def _label(token: Any) -> str | None:
    return None if token is None else str(token)[1:-1]


def _shapes(pattern: str, any_order: bool) -> set[tuple[int, ...]]:
    """The suit lengths (spades, hearts, diamonds, clubs) a shape pattern matches: digits fixed, x any."""
    from itertools import permutations, product
    out: set[tuple[int, ...]] = set()
    orders = set(permutations(pattern)) if any_order else {tuple(pattern)}
    for order in orders:
        free = [i for i, c in enumerate(order) if c == "x"]
        fixed = sum(int(c) for c in order if c != "x")
        for fill in product(range(14), repeat=len(free)):
            if fixed + sum(fill) != 13:
                continue
            lengths = [0 if c == "x" else int(c) for c in order]
            for i, v in zip(free, fill, strict=True):
                lengths[i] = v
            out.add(tuple(lengths))
    return out


def _condition_text(text: str) -> str:
    """The script without its comments."""
    import re
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    return re.sub(r"(?m)^#[^\n]*", " ", text)


def multinomial(counts: list[int]) -> int:
    """The ways to share sum(counts) cards out in these counts."""
    total, ways = 0, 1
    for c in counts:
        total += c
        ways *= comb(total, c)
    return ways


__all__ = ["ScriptAction", "Node", "Script", "ScriptError", "multinomial", "parse_script", "read_script"]
