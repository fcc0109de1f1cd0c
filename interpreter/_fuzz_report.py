"""The report of `gdl fuzz`: dead rules from coverage, the coverage table, text and JSON."""
from __future__ import annotations

import os
from pathlib import Path
from shlex import quote
from typing import Dict, List

from gdl import ast as A

from ._fuzz_common import DEAD, HOLES, KINDS, step_text

#: Steps of a trace printed in the text report (the last ones).
SHOWN_TRACE = 10
_COUNTED = (A.RuleDecl, A.ActionDecl, A.TriggerDecl, A.FlowDecl)


# ---------------------------------------------------------------------------- coverage
def _name(d) -> str:
    return "flow" if isinstance(d, A.FlowDecl) else d.name


def _kind(d) -> str:
    return "flow" if isinstance(d, A.FlowDecl) else type(d).__name__[:-4].lower()


def coverage_rows(ruleset, decls, coverage: Dict[tuple, int]) -> List[dict]:
    """Returns one row per rule, action, trigger and the flow, in file order: its
    statements, how many ran, how often it was entered, and the lines that never ran."""
    by_rule: Dict[str, Dict[int, int]] = {}
    for (rule, line, _), n in coverage.items():
        lines = by_rule.setdefault(rule, {})
        lines[line] = lines.get(line, 0) + n
    rows = []
    for d in ruleset.decls:
        if not isinstance(d, _COUNTED):
            continue
        name = _name(d)
        lines = by_rule.get(name) or {line: 0 for line in _statement_lines(d)}
        rows.append({
            "name": name, "kind": _kind(d), "file": os.path.normpath(d.span.file),
            "line": d.span.line,
            "statements": len(lines), "run": sum(1 for n in lines.values() if n),
            "runs": lines[min(lines)] if lines else 0,
            "dead_lines": sorted(line for line, n in lines.items() if not n)})
    return rows


def _statement_lines(d) -> List[int]:
    """The lines of a declaration's statements as coverage counts them (`pass` only as a
    whole body), for one the rules never compiled (a rule nothing calls): none ran."""
    body = getattr(d, "body", None) or ()
    if len(body) == 1 and isinstance(body[0], A.Pass):
        return [body[0].span.line]
    out: List[int] = []

    def walk(block):
        for s in block:
            if not isinstance(s, A.Pass):
                out.append(s.span.line)
            if isinstance(s, A.If):
                for _, branch in s.branches:
                    walk(branch)
                walk(s.else_body)
            elif isinstance(s, (A.Repeat, A.While, A.For)):
                walk(s.body)
    walk(body)
    return sorted(set(out))


def _ranges(lines: List[int]) -> str:
    out, start, prev = [], None, None
    for line in lines + [None]:
        if start is not None and (line is None or line != prev + 1):
            out.append(f"{start}" if start == prev else f"{start}-{prev}")
            start = None
        if line is not None and start is None:
            start = line
        prev = line
    return ", ".join(out)


def dead_findings(ruleset, decls, coverage, options) -> List[dict]:
    """Returns the dead rules and dead branches of the whole run, as Finding fields."""
    out = []
    for row in coverage_rows(ruleset, decls, coverage):
        name, kind = row["name"], row["kind"]
        ref = [(name, row["file"], row["line"])]
        if not row["statements"] or not row["run"]:
            verb = "never fires" if kind == "trigger" else \
                "is never played" if kind == "action" else "never runs"
            out.append({"kind": DEAD, "subkind": kind, "rules": ref, "options": options,
                        "message": f"{kind} {name} {verb}"})
        elif row["dead_lines"]:
            out.append({"kind": DEAD, "subkind": "branch", "rules": ref, "options": options,
                        "message": f"{kind} {name}: line{'s' if len(row['dead_lines']) > 1 else ''}"
                                   f" {_ranges(row['dead_lines'])} never run"})
    return out


# ---------------------------------------------------------------------------- text
def _same_file(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return a == b


def rule_text(rule, path: str) -> str:
    name, file, line = rule
    if not line:
        return name
    where = f"line {line}" if not file or _same_file(file, path) else \
        f"{Path(file).name}:{line}"
    return f"{name} ({where})"


def _options_text(options: Dict[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in options.items()) or "defaults"


def _short(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[:width - 3] + "..."


def _header(r) -> List[str]:
    s = r.stats
    walk = ""
    if s["walk_states"]:
        whole = "complete" if s["walk_complete"] else "partial"
        walk = f", breadth-first walk of {s['walk_states']:,} states ({whole})"
    orders = f", {s['trigger_orders']} trigger orders" if s["trigger_orders"] > 1 else ""
    swept = len(r.configs) - 1
    lines = [f"gdl fuzz {r.path}: {r.title}",
             f"  options:  {_options_text(r.options)}"
             + (f"  (+{swept} other configuration{'s' if swept != 1 else ''})"
                if swept else ""),
             f"  explored: {s['playthroughs']:,} playthroughs ({s['ended']:,} to the end), "
             f"{s['steps']:,} steps{walk}{orders}",
             f"  time:     {r.seconds:.1f} s (budget {r.budget:g} s), {r.jobs} "
             f"worker{'s' if r.jobs > 1 else ''}, seed {r.seed}"]
    if r.interrupted:
        lines.append("  INTERRUPTED (Ctrl-C): what the finished work found; findings may be "
                     "unshrunk, dead rules and option values are not judged")
    if r.trace_dir:
        lines.append(f"  traces:   {r.trace_dir}")
    return lines


def _summary(r) -> List[str]:
    lines = ["", "summary:", f"  {'kind':<22}{'found':>6}"]
    for kind in KINDS:
        lines.append(f"  {kind:<22}{len(r.by_kind(kind)):>6}")
    holes = len(r.holes())
    lines.append(f"  {'holes (all but dead)':<22}{holes:>6}")
    return lines


def _table(r) -> List[str]:
    if not r.findings:
        return ["", "no findings"]
    lines = ["", "findings:", f"  {'#':>3}  {'kind':<20} {'step':>5}  {'where':<28} what"]
    for n, f in enumerate(r.findings, 1):
        where = rule_text(f.rules[0], r.path) if f.rules else "-"
        at = "-" if f.at is None else str(f.at)
        lines.append(f"  {n:>3}  {f.kind:<20} {at:>5}  {_short(where, 28):<28} "
                     f"{_short(f.message, 76)}")
    if r.unswept and any(f.kind == DEAD for f in r.findings):
        lines.append("  (dead rules judged under these options only: --sweep-options also "
                     "tries every other option value)")
    return lines


def _details(r) -> List[str]:
    lines = []
    for n, f in enumerate(r.findings, 1):
        if f.kind == DEAD:
            continue
        message = f.message[len(f.kind) + 2:] if f.message.startswith(f.kind + ": ") \
            else f.message
        lines += ["", f"{n}. {f.kind}" + (f" ({f.subkind})" if f.subkind else "")
                  + f": {message}"]
        if f.rules:
            lines.append("   rules:   " + ", ".join(rule_text(x, r.path) for x in f.rules))
        lines.append(f"   options: {_options_text(f.options)}")
        if f.count > 1:
            lines.append(f"   found:   {f.count} times, in {len(f.configs)} "
                         f"configuration{'s' if len(f.configs) > 1 else ''}")
        if f.steps is not None:
            lines += _trace_lines(f)
        if f.trace_path:
            lines.append(f"   open:    gdl play {quote(r.path)} --trace {quote(f.trace_path)}")
        lines += [f"   {d}" for d in f.detail]
    return lines


def _trace_lines(f) -> List[str]:
    n = len(f.steps)
    how = "" if not f.shrunk_from or f.shrunk_from == n else f", shrunk from {f.shrunk_from}"
    head = f"   trace:   {n} step{'s' if n != 1 else ''}{how}"
    if not n:
        return [head + " (at the setup)"]
    shown = f.steps[-SHOWN_TRACE:]
    lines = [head + ":"]
    if n > len(shown):
        lines.append(f"     ... {n - len(shown)} earlier steps")
    first = n - len(shown) + 1
    lines += [f"     {first + i}. {_short(step_text(s), 66)}" for i, s in enumerate(shown)]
    return lines


def _coverage(r) -> List[str]:
    wheres = [str(row["line"]) if _same_file(row["file"], r.path) else
              f"{Path(row['file']).name}:{row['line']}" for row in r.coverage]
    wide = max([len(w) for w in wheres] + [4])
    lines = ["", "coverage (statements run / statements, times entered):",
             f"  {'rule':<26}{'kind':<9}{'line':>{wide}}  {'run':>9}  {'entered':>9}  "
             f"never run"]
    for row, where in zip(r.coverage, wheres):
        ran = f"{row['run']}/{row['statements']}"
        dead = "all" if row["statements"] and not row["run"] else \
            "never called" if not row["statements"] else _ranges(row["dead_lines"])
        lines.append(f"  {_short(row['name'], 25):<26}{row['kind']:<9}{where:>{wide}}  "
                     f"{ran:>9}  {row['runs']:>9,}  {dead}")
    return lines


def report_text(r) -> str:
    """Returns the report as text for people."""
    return "\n".join(_header(r) + _summary(r) + _table(r) + _details(r) + _coverage(r))


def report_json(r) -> dict:
    """Returns the report as JSON-ready data."""
    return {"path": r.path, "title": r.title, "options": r.options, "configs": r.configs,
            "stats": r.stats, "seconds": round(r.seconds, 3), "budget": r.budget,
            "jobs": r.jobs, "seed": r.seed, "trace_dir": r.trace_dir,
            "interrupted": r.interrupted,
            "summary": {k: len(r.by_kind(k)) for k in KINDS},
            "holes": len([f for f in r.findings if f.kind in HOLES]),
            "findings": [f.to_json() for f in r.findings], "coverage": r.coverage}
