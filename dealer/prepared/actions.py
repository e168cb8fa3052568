"""A script's statistics (`average`, `frequency` in one and two dimensions) over the deals kept, printed as the
reference program prints them, and the same figures as plain data for a JSON report."""

from __future__ import annotations

from typing import Any

import numpy as np

from dealer.core.cards import DealArray
from dealer.prepared.compiler import Compiled


def statistics(compiled: Compiled, deals: DealArray) -> list[dict[str, Any]]:
    """Each statistic of the script over `deals` (the boards made), in the script's order."""
    out: list[dict[str, Any]] = []
    for action in compiled.script.actions:
        values = [compiled.values(expr, deals) for expr in action.exprs]
        if action.kind == "average":
            total = int(values[0].sum())
            out.append({"action": "average", "label": action.label, "count": len(deals), "sum": total,
                        "average": total / len(deals) if len(deals) else 0.0})
        elif action.kind == "frequency":
            low, high = action.bounds
            v = values[0]
            counts = [int(np.count_nonzero(v == i)) for i in range(low, high + 1)]
            out.append({"action": "frequency", "label": action.label, "low": low, "high": high,
                        "below": int(np.count_nonzero(v < low)), "counts": counts,
                        "above": int(np.count_nonzero(v > high))})
        else:
            low1, high1, low2, high2 = action.bounds
            rows = np.clip(values[0], low1 - 1, high1 + 1) - (low1 - 1)  # 0 is Low, the last High
            columns = np.clip(values[1], low2 - 1, high2 + 1) - (low2 - 1)
            table = np.zeros((high1 - low1 + 3, high2 - low2 + 3), dtype=np.int64)
            np.add.at(table, (rows, columns), 1)
            out.append({"action": "frequency2", "label": action.label, "bounds": [low1, high1, low2, high2],
                        "table": table.tolist()})
    return out


def printed(results: list[dict[str, Any]]) -> str:
    """The statistics as the reference program prints them."""
    lines: list[str] = []
    for r in results:
        label = r["label"]
        if r["action"] == "average":
            lines.append((f"{label}: " if label is not None else "") + f"{r['average']:g}")
        elif r["action"] == "frequency":
            lines.append(f"Frequency {label or ''}:")
            if r["below"]:
                lines.append(f"Low\t{r['below']:8d}")
            lines.extend(f"{i:5d}\t{c:8d}" for i, c in zip(range(r["low"], r["high"] + 1), r["counts"], strict=True))
            if r["above"]:
                lines.append(f"High\t{r['above']:8d}")
        else:
            low1, high1, low2, high2 = r["bounds"]
            table = np.array(r["table"])
            lines.append(f"Frequency {label or ''}:")
            lines.append("        Low" + "".join(f"{j:7d}" for j in range(low2, high2 + 1)) + "   High    Sum")
            names = ["Low "] + [f"{i:4d}" for i in range(low1, high1 + 1)] + ["High"]
            for name, row in zip(names, table, strict=True):
                lines.append(name + "".join(f"{int(c):7d}" for c in row) + f"{int(row.sum()):7d}")
            lines.append("Sum " + "".join(f"{int(c):7d}" for c in table.sum(axis=0)) + f"{int(table.sum()):7d}")
            lines.append("")
    return "".join(line + "\n" for line in lines)
