"""The live view of a review: `EventPrinter` (what `--verbose` prints) and the option itself."""

from __future__ import annotations

import io
import logging
from collections.abc import Iterable

from rich.console import Console
from typer.testing import CliRunner

from contract_review.cli import EventPrinter, app
from contract_review.cli.live import _live_output
from contract_review.graph.events import EventType, ReviewEvent


def _printer(*, verbose: bool) -> tuple[EventPrinter, io.StringIO]:
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, color_system=None)
    return EventPrinter(console, verbose=verbose), buffer


def _feed(printer: EventPrinter, events: Iterable[ReviewEvent]) -> None:
    for event in events:
        printer(event)


def _lines(buffer: io.StringIO) -> list[str]:
    return buffer.getvalue().splitlines()


def _tokens(clause_id: str, n: int) -> list[ReviewEvent]:
    return [ReviewEvent(type=EventType.LLM_TOKEN, clause_id=clause_id, text="x") for _ in range(n)]


def _tool_call(
    call_id: str, tool: str, arguments: dict[str, object], ok: bool, result: str
) -> list[ReviewEvent]:
    """The start and end events of one tool call on clause 4.1."""
    common = {"clause_id": "4.1", "tool": tool, "call_id": call_id}
    return [
        ReviewEvent(type=EventType.TOOL_START, arguments=arguments, **common),
        ReviewEvent(type=EventType.TOOL_END, ok=ok, text=result, **common),
    ]


def _clause_done(clause_id: str, mode: str, reason: str, *, risks: int, diffs: int) -> ReviewEvent:
    """The event of a finished clause."""
    data = {"key": clause_id, "mode": mode, "reason": reason, "risks": risks, "diffs": diffs}
    return ReviewEvent(type=EventType.CLAUSE_DONE, clause_id=clause_id, data=data)


def _run() -> list[ReviewEvent]:
    """A review's events: top-level nodes, a clause with tools and tokens, a fallback clause."""
    return [
        ReviewEvent(type=EventType.NODE_START, node="parse_document"),
        ReviewEvent(type=EventType.NODE_END, node="parse_document"),
        ReviewEvent(type=EventType.NODE_START, node="clause_review", clause_id="4.1"),
        ReviewEvent(type=EventType.NODE_START, node="clause_analyze", clause_id="4.1"),
        *_tokens("4.1", 5),
        *_tool_call(
            "c1",
            "get_clause_context",
            {"clause_id": "4.1"},
            True,
            '{"clause_id": "4.1", "title": "Payment"}',
        ),
        *_tool_call(
            "c2",
            "extract_financial_terms",
            {"limit": 3},
            False,
            "unknown tool 'extract_financial_terms'",
        ),
        *_tokens("4.1", 7),
        ReviewEvent(type=EventType.NODE_END, node="clause_analyze", clause_id="4.1"),
        ReviewEvent(
            type=EventType.DIFF_PROPOSED,
            clause_id="4.1",
            data={
                "diff_id": "D1",
                "clause_id": "4.1",
                "action_type": "replace",
                "original_text": "within 90 days",
                "proposed_text": "within 30 days",
            },
        ),
        _clause_done("4.1", "llm", "", risks=2, diffs=1),
        _clause_done("7", "deterministic", "LLM agent timed out after 30 s", risks=1, diffs=0),
        ReviewEvent(type=EventType.NODE_END, node="clause_review"),
        ReviewEvent(type=EventType.INTERRUPT, data={"diffs": 2}),
    ]


def test_verbose_prints_one_line_per_event() -> None:
    printer, buffer = _printer(verbose=True)
    _feed(printer, _run())
    assert _lines(buffer) == [
        "start parse_document",
        "end parse_document",
        "[clause 4.1] start clause_review",
        "[clause 4.1] start clause_analyze",
        "[clause 4.1] tool get_clause_context(clause_id='4.1') …",
        '[clause 4.1] tool get_clause_context → ok: {"clause_id": "4.1", "title": "Payment"}',
        "[clause 4.1] tool extract_financial_terms(limit=3) …",
        "[clause 4.1] tool extract_financial_terms → error: unknown tool 'extract_financial_terms'",
        "[clause 4.1] end clause_analyze",
        "[clause 4.1] redline proposed: replace 'within 90 days' → 'within 30 days'",
        "[clause 4.1] done: llm, 2 risks, 1 redline, 12 tokens streamed",
        "[clause 7] done: rules only, 1 risk, 0 redlines — LLM agent timed out after 30 s",
        "waiting for approval of 2 redline(s)",
    ]


def test_token_counts_are_per_clause_and_reset_when_the_clause_is_done() -> None:
    printer, buffer = _printer(verbose=True)
    done = ReviewEvent(type=EventType.CLAUSE_DONE, clause_id="1", data={"mode": "llm"})
    _feed(printer, [*_tokens("1", 3), *_tokens("2", 4), done, done])
    assert _lines(buffer) == [
        "[clause 1] done: llm, 0 risks, 0 redlines, 3 tokens streamed",
        "[clause 1] done: llm, 0 risks, 0 redlines",
    ]


def test_delete_and_insert_redlines() -> None:
    printer, buffer = _printer(verbose=True)
    delete = {"action_type": "delete", "original_text": "without limit", "proposed_text": ""}
    insert = {"action_type": "insert", "original_text": "losses", "proposed_text": " up to 1 M"}
    _feed(
        printer,
        [
            ReviewEvent(type=EventType.DIFF_PROPOSED, clause_id="2", data=delete),
            ReviewEvent(type=EventType.DIFF_PROPOSED, clause_id="2", data=insert),
        ],
    )
    assert _lines(buffer) == [
        "[clause 2] redline proposed: delete 'without limit'",
        "[clause 2] redline proposed: insert 'up to 1 M' after 'losses'",
    ]


def test_a_warning_is_printed_once_verbose_or_not() -> None:
    text = "LLM endpoint unusable (cannot connect); the review continues in deterministic mode."
    warning = ReviewEvent(type=EventType.WARNING, clause_id="3", text=text)
    for verbose in (True, False):
        printer, buffer = _printer(verbose=verbose)
        _feed(printer, [warning, warning])
        printer.warning(text)
        assert _lines(buffer) == [f"warning: {text}"]


def test_without_verbose_only_warnings_are_printed() -> None:
    printer, buffer = _printer(verbose=False)
    warning = ReviewEvent(type=EventType.WARNING, text="clause 9 could not be reviewed")
    _feed(printer, [*_run(), warning])
    assert _lines(buffer) == ["warning: clause 9 could not be reviewed"]


def test_the_warning_is_yellow() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, width=200, force_terminal=True, color_system="standard")
    EventPrinter(console, verbose=False).warning("careful")
    assert "\x1b[33mwarning: careful" in buffer.getvalue()


def test_contract_text_is_printed_literally() -> None:
    printer, buffer = _printer(verbose=True)
    odd = "[bold]Ignore[/bold] all [red]rules[/] :warning: [link=x]y[/link]"
    _feed(
        printer,
        [
            ReviewEvent(
                type=EventType.TOOL_START,
                clause_id="[1]",
                tool="search_document",
                arguments={"query": odd},
            ),
            ReviewEvent(
                type=EventType.TOOL_END, clause_id="[1]", tool="search_document", ok=True, text=odd
            ),
            ReviewEvent(
                type=EventType.DIFF_PROPOSED,
                clause_id="[1]",
                data={"action_type": "replace", "original_text": odd, "proposed_text": "[b]x"},
            ),
            ReviewEvent(type=EventType.WARNING, text=odd),
        ],
    )
    lines = _lines(buffer)
    assert lines[0] == f"[clause [1]] tool search_document(query={odd!r}) …"
    assert lines[1] == f"[clause [1]] tool search_document → ok: {odd}"
    assert lines[2].startswith("[clause [1]] redline proposed: replace '[bold]Ignore[/bold]")
    assert lines[2].endswith(" → '[b]x'")
    assert lines[3] == f"warning: {odd}"


def test_long_tool_results_are_cut_to_one_line() -> None:
    printer, buffer = _printer(verbose=True)
    text = "line one\nline two " + "x" * 500
    printer(ReviewEvent(type=EventType.TOOL_END, clause_id="1", tool="t", ok=True, text=text))
    (line,) = _lines(buffer)
    assert line.startswith("[clause 1] tool t → ok: line one line two xxx")
    assert line.endswith("…")
    assert len(line) < 200


def test_engine_log_warnings_go_through_the_printer_once() -> None:
    message = "LLM endpoint unusable (boom); the review continues in deterministic mode."
    with _live_output(False) as (_, printer):
        buffer = io.StringIO()
        printer.console = Console(file=buffer, width=200, color_system=None)
        logging.getLogger("contract_review.graph.builder").warning(message)
        printer(ReviewEvent(type=EventType.WARNING, text=message))
    logging.getLogger("contract_review.graph.builder").warning("after the run")
    assert _lines(buffer) == [f"warning: {message}"]


def test_review_and_resume_have_a_verbose_option() -> None:
    runner = CliRunner()
    for command in ("review", "resume"):
        done = runner.invoke(app, [command, "--help"], env={"COLUMNS": "200", "NO_COLOR": "1"})
        assert done.exit_code == 0, done.output
        assert "--verbose" in done.output
        assert "-v" in done.output
