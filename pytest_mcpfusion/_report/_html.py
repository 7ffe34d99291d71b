"""The wire report as one self-contained HTML page, for a reviewer to look at.

It renders :meth:`WireReport.document` (the same data as the JSON report):
totals, the failed contract tests (node id, rules, call, the kinds of the
blocks received linked to their samples, the command that reruns it), then
one section per action with its calls by outcome, a bar per block kind for
bytes and, with a tokenizer, for tokens (scaled to the run's largest), its
violations and warnings, and last a sample block of each kind. No script,
no external style or font: the file can be attached to a CI run and opened
anywhere. Everything user-controlled
(messages, action names) is HTML-escaped.
"""

from __future__ import annotations

import html
from typing import Any, Final

from pytest_mcpfusion._report._summary import OUTCOMES, toon_verdict

__all__ = ["render_html"]

_STYLE: Final = """
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222;max-width:72em}
h1{font-size:1.4em}h2{font-size:1.1em;margin:1.6em 0 .4em}
table{border-collapse:collapse;margin:.4em 0}
td,th{padding:.15em .6em;text-align:left;vertical-align:middle}
th{font-weight:600;border-bottom:1px solid #ccc}
.num{text-align:right;font-variant-numeric:tabular-nums}
.bar{display:inline-block;height:.8em;background:#4a7bd0;vertical-align:middle}
.bar.t{background:#d08a4a}
.ok{color:#1a7f37}.error{color:#b35900}.validation{color:#8250df}
.violation{color:#b00}.warning{color:#8a6d00}
.missing{background:#fff3cd;padding:.2em .5em}
ul{margin:.2em 0 .6em 1.2em;padding:0}code{font-size:.95em}
h3{font-size:1em;margin:1em 0 .2em}
pre{background:#f6f8fa;padding:.6em;overflow:auto;max-height:24em;white-space:pre-wrap}
#failures td{vertical-align:top;border-bottom:1px solid #eee}
"""
_BAR_WIDTH: Final = 240  # pixels of the largest bar


def render_html(document: dict[str, Any]) -> str:
    """The page for one report document."""
    totals = document["totals"]
    scale = _scale(document)
    tokens = document.get("tokenizer") is not None
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Fusion wire report</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Fusion wire report</h1>",
        *(
            [f'<p class="missing">{_e(document["headline"])}</p>']
            if document.get("headline")
            else []
        ),
        _totals(totals, document.get("tokenizer"), document.get("pytest")),
        _failures(document.get("failed_tests", [])),
        "<h2>All blocks</h2>",
        _blocks(document["blocks"], scale, tokens=tokens),
    ]
    if document["never_called"]:
        names = ", ".join(f"<code>{_e(name)}</code>" for name in document["never_called"])
        parts.append(f'<p class="missing">Never called: {names}</p>')
    parts.extend(_action(action, scale, tokens=tokens) for action in document["actions"])
    parts.append(_samples(document.get("samples", {})))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _scale(document: dict[str, Any]) -> tuple[int, int]:
    sizes = [1]
    tokens = [1]
    for action in document["actions"]:
        for kind in action["blocks"].values():
            sizes.append(kind["bytes"])
            tokens.append(kind["tokens"] or 0)
    return max(sizes), max(tokens)


def _totals(totals: dict[str, Any], tokenizer: str | None, outcome: Any = None) -> str:
    rows: list[tuple[str, object]] = [
        ("calls", totals["calls"]),
        ("ok / error / validation", f"{totals['ok']} / {totals['error']} / {totals['validation']}"),
        ("blocks", totals["blocks"]),
        ("bytes", f"{totals['bytes']:,}"),
        (
            f"tokens ({tokenizer})" if tokenizer else "tokens",
            f"{totals['tokens']:,}" if totals["tokens"] is not None else "no tokenizer installed",
        ),
        (
            "TOON",
            toon_verdict(totals["toon_tokens_saved"])
            if totals["toon_tokens_saved"] is not None
            else "no tokenizer installed",
        ),
        ("contract violations", totals["violations"]),
        ("warnings", totals["warnings"]),
        ("contract tests failed", totals["contract_tests_failed"]),
        ("contract tests not run (may write)", totals.get("contract_tests_not_run", 0)),
        ("calls that succeeded on tools that may write", totals.get("write_calls", 0)),
    ]
    if isinstance(outcome, dict):
        counts = ", ".join(
            f"{outcome[key]} {key}" for key in ("passed", "failed", "skipped", "errors")
        )
        rows.append(("pytest", f"exit status {outcome['exit_status']}: {counts}"))
    cells = "".join(f"<tr><th>{_e(name)}</th><td>{_e(value)}</td></tr>" for name, value in rows)
    return f"<table>{cells}</table>"


def _bar(value: int | None, largest: int, css: str) -> str:
    if value is None:
        return ""
    width = max(1, round(_BAR_WIDTH * value / largest)) if value else 0
    return f'<span class="{css}" style="width:{width}px"></span>'


def _blocks(
    blocks: dict[str, dict[str, int | None]], scale: tuple[int, int], *, tokens: bool
) -> str:
    """A row per block kind; the tokens columns only when a tokenizer counted them."""
    if not blocks:
        return "<p>No blocks.</p>"
    biggest = (
        max([scale[0], *(kind["bytes"] or 0 for kind in blocks.values())]),
        max([scale[1], *(kind["tokens"] or 0 for kind in blocks.values())]),
    )
    head = "<th>kind</th><th>blocks</th><th>bytes</th><th></th>"
    rows = [f"<tr>{head}{'<th>tokens</th><th></th>' if tokens else ''}</tr>"]
    for name, kind in blocks.items():
        counted, size = kind["tokens"], kind["bytes"] or 0
        cells = (
            f'<td class="num">{"" if counted is None else f"{counted:,}"}</td>'
            f"<td>{_bar(counted, biggest[1], 'bar t')}</td>"
            if tokens
            else ""
        )
        rows.append(
            f'<tr><td><a href="#{_sample_id(name)}"><code>{_e(name)}</code></a></td>'
            f'<td class="num">{kind["count"]}</td>'
            f'<td class="num">{size:,}</td><td>{_bar(size, biggest[0], "bar")}</td>{cells}</tr>'
        )
    return "<table>" + "".join(rows) + "</table>"


def _sample_id(kind: str) -> str:
    return f"sample-{kind}"


def _failures(failed: list[dict[str, Any]]) -> str:
    """The failed contract tests: node id, rules, the call, its blocks' samples, how to rerun."""
    if not failed:
        return ""
    head = "".join(
        f"<th>{name}</th>"
        for name in ("contract test", "rules", "call", "blocks received", "reproduce")
    )
    rows = [f"<tr>{head}</tr>"]
    for test in failed:
        kinds = " ".join(
            f'<a href="#{_sample_id(kind)}"><code>{_e(kind)}</code></a>' for kind in test["kinds"]
        )
        calls = "<br>".join(f"<code>{_e(call)}</code>" for call in test["calls"])
        rules = " ".join(f'<code class="violation">{_e(rule)}</code>' for rule in test["rules"])
        rows.append(
            f"<tr><td><code>{_e(test['test'])}</code><br>"
            f'<a href="#{_e(test["action"])}">{_e(test["action"])}</a></td>'
            f"<td>{rules}</td><td>{calls}</td><td>{kinds}</td>"
            f"<td><code>{_e(test['reproduce'])}</code></td></tr>"
        )
    return (
        f'<h2 class="violation">Failed contract tests: {len(failed)}</h2>'
        f'<table id="failures">{"".join(rows)}</table>'
    )


def _samples(samples: dict[str, str]) -> str:
    """One block of each kind the run received, as the server sent it (escaped)."""
    if not samples:
        return ""
    parts = ['<h2 id="samples">A block of each kind</h2>']
    for kind, text in samples.items():
        parts.append(
            f'<h3 id="{_sample_id(kind)}"><code>{_e(kind)}</code></h3><pre>{_e(text)}</pre>'
        )
    return "\n".join(parts)


def _action(action: dict[str, Any], scale: tuple[int, int], *, tokens: bool) -> str:
    calls = action["calls"]
    outcome = " · ".join(f'<span class="{name}">{calls[name]} {name}</span>' for name in OUTCOMES)
    examples = f", {action['example_calls']} from examples" if action["example_calls"] else ""
    known = "" if action["known"] else " (not in tools/list)"
    parts = [
        f'<h2 id="{_e(action["name"])}"><code>{_e(action["name"])}</code>{_e(known)}</h2>',
        f"<p>{action['total_calls']} calls: {outcome}{_e(examples)}</p>",
        _blocks(action["blocks"], scale, tokens=tokens) if action["blocks"] else "",
    ]
    parts.extend(
        f'<p class="warning">[{_e(test["test"])}] not run: {_e(test["reason"])}</p>'
        for test in action.get("not_run", ())
    )
    if action.get("writes"):
        items = "".join(
            f"<li><code>{_e(item['arguments'])}</code>"
            + (f" (×{item['count']})" if item["count"] > 1 else "")
            + "</li>"
            for item in action["writes"]
        )
        parts.append(f"<p>succeeded although it may write:</p><ul>{items}</ul>")
    for key, css in (("violations", "violation"), ("warnings", "warning")):
        if action[key]:
            items = "".join(
                f'<li class="{css}">{_e(item["message"])}'
                + (f" (×{item['count']})" if item["count"] > 1 else "")
                + "</li>"
                for item in action[key]
            )
            parts.append(f"<p>{key}:</p><ul>{items}</ul>")
    return "\n".join(part for part in parts if part)
