"""Large-document benchmark: is a deterministic review linear in the size of the contract?

Generates synthetic, contract-like plain text (a preamble naming the parties, recitals, a
definitions article, then numbered articles "12." with clauses "12.3", (a)/(b) items, amounts,
periods of days and cross-references, drawn from a pool of clause templates with varying
numbers) at target sizes in MB and in lines, reviews each in a fresh subprocess (generic
domain, deterministic, every redline approved) and prints wall time, seconds per MB, peak RSS
of that process and where the time went (reading and parsing, parties, checklist, the review
graph, inventory, reports, the Word redline).

    .venv/bin/python bench/large_docs.py [--sizes 1,5,20,50] [--lines 10000,50000,100000,200000]
    .venv/bin/python bench/large_docs.py --sizes 5 --lines "" --profile 5MB

`--profile LABEL` runs that one document (e.g. 5MB or 50000L) under cProfile and prints the
functions of the largest cumulative time (main thread only: skills that run in worker
threads show as the awaits of their callers; `py-spy --threads` sees them). The input limit
is raised for the runs (MAX_FILE_MB, MAX_TEXT_MB); a run past `--timeout` seconds is killed
and reported as such.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MB = 1024 * 1024

_PARTIES = (
    ("Granite Peak Components, Inc.", "Supplier", "a Delaware corporation"),
    ("Lakeshore Instruments LLC", "Buyer", "a Michigan limited liability company"),
)

_DEFINED = (
    ("Affiliate", "any entity that directly or indirectly controls, is controlled by, or is "
     "under common control with a party"),
    ("Products", "the machined sensor housings described in Schedule 1, as amended from time "
     "to time by written agreement of the parties"),
    ("Purchase Order", "a written order for Products issued by the Buyer under Clause 2"),
    ("Specifications", "the drawings, tolerances and quality requirements for the Products set "
     "out in Schedule 2"),
    ("Confidential Information", "all information disclosed by a party to the other that is "
     "marked confidential or would reasonably be understood to be confidential"),
    ("Business Day", "a day other than a Saturday, Sunday or public holiday in Michigan"),
    ("Intellectual Property Rights", "patents, rights to inventions, copyright, trade marks, "
     "design rights and all similar rights anywhere in the world"),
    ("Term", "the initial term together with every renewal term"),
)  # fmt: skip

_HEADINGS = (
    "PURCHASE AND SALE", "PRICE AND PAYMENT", "DELIVERY AND ACCEPTANCE", "WARRANTIES",
    "LIMITATION OF LIABILITY", "INDEMNITIES", "CONFIDENTIALITY", "INTELLECTUAL PROPERTY",
    "TERM AND TERMINATION", "FORCE MAJEURE", "INSURANCE", "AUDIT AND RECORDS", "NOTICES",
    "ASSIGNMENT", "GOVERNING LAW AND DISPUTES", "GENERAL PROVISIONS", "SERVICE LEVELS",
    "CHANGE CONTROL", "COMPLIANCE WITH LAWS", "DATA PROTECTION",
)  # fmt: skip

_NUMBERS = (
    "five", "ten", "fifteen", "twenty", "thirty", "forty-five", "sixty", "ninety",
)  # fmt: skip

# Clause templates; {a}/{b} are the parties' labels, {d}/{dn} a number of days in words and
# figures, {amt} an amount, {pct} a percentage, {ref} a cross-reference, {term} a defined term.
_CLAUSES = (
    "The {b} shall order {term} by issuing a Purchase Order to the {a}. The {a} shall accept or "
    "reject each Purchase Order within {d} ({dn}) days after receipt; a Purchase Order that is "
    "not rejected within that period is deemed accepted.",
    "The {b} shall pay each undisputed invoice within {d} ({dn}) days after receipt by wire "
    "transfer to the account designated by the {a}. Late payments bear interest at {pct}% per "
    "annum from the due date until paid in full.",
    "The {a} warrants that, for {dn} months after delivery, the Products will conform to the "
    "Specifications and be free from defects in material and workmanship.",
    "Neither party shall be liable for any indirect, incidental or consequential damages. The "
    "aggregate liability of the {a} under this Agreement shall not exceed USD {amt}.",
    "The {a} shall indemnify the {b} against all losses, damages and costs arising from any "
    "claim that the Products infringe the Intellectual Property Rights of a third party, "
    "subject to {ref}.",
    "Each party shall keep the Confidential Information of the other party confidential and "
    "shall not disclose it to any person other than its Affiliates and advisers for a period of "
    "{dn} years after the end of the Term.",
    "Either party may terminate this Agreement by written notice to the other if the other "
    "party materially breaches this Agreement and fails to cure the breach within {d} ({dn}) "
    "days after receiving notice of it.",
    "The {a} shall maintain insurance with reputable insurers covering product liability in an "
    "amount of not less than USD {amt} per occurrence and shall provide certificates on request.",
    "All notices under this Agreement shall be in writing and delivered by hand, by courier or "
    "by email with confirmation of receipt to the addresses set out in {ref}.",
    "Neither party may assign or transfer this Agreement without the prior written consent of "
    "the other, except to an Affiliate or to a successor to substantially all of its business.",
    "This Agreement is governed by the laws of the State of Michigan, and the parties submit to "
    "the exclusive jurisdiction of the courts located in Kent County, Michigan.",
    "The {b} may, on {d} ({dn}) Business Days' notice and not more than once in any year, audit "
    "the records of the {a} relating to the {term} to verify compliance with {ref}.",
    "The {a} shall meet the service levels set out in Schedule 3; a failure to do so in any "
    "month entitles the {b} to a service credit of {pct}% of the monthly charges.",
    "Neither party is liable for any delay caused by an event beyond its reasonable control, "
    "provided that it notifies the other within {d} ({dn}) days; if the event lasts more than "
    "{dn} days, either party may terminate under {ref}.",
    "The {a} shall comply with all applicable laws, including anti-bribery and export control "
    "laws, in performing its obligations in relation to the {term}.",
    "Title to and risk of loss of the Products pass to the {b} upon delivery to the carrier "
    "nominated by the {b} at the delivery location stated in the Purchase Order.",
    "Any change to the {term} shall be agreed in writing under the change control procedure; the "
    "{a} may not increase its charges by more than {pct}% in any contract year.",
    "The {a} shall process personal data only on the documented instructions of the {b} and "
    "shall notify the {b} of any personal data breach within {dn} hours of becoming aware of it.",
)  # fmt: skip

_ITEMS = (
    "the other party becomes insolvent or makes an assignment for the benefit of creditors",
    "a payment of USD {amt} or more remains unpaid for {d} ({dn}) days after its due date",
    "the {a} fails to meet the Specifications on {dn} or more deliveries in any quarter",
    "a change of control of the {a} occurs without the prior consent of the {b}",
    "the {b} disputes an invoice in good faith and notifies the {a} within {d} ({dn}) days",
)  # fmt: skip


class _Writer:
    """Contract text built clause by clause, until a size in bytes or in lines is reached."""

    def __init__(self, seed: int) -> None:
        self.rnd = random.Random(seed)
        self.parts: list[str] = []
        self.size = 0
        self.lines = 0

    def add(self, text: str) -> None:
        self.parts.append(text)
        self.size += len(text.encode("utf-8")) + 2
        self.lines += text.count("\n") + 2
        self.parts.append("")

    def fill(self, template: str, article: int) -> str:
        r = self.rnd
        n = r.randrange(len(_NUMBERS))
        ref_article = r.randint(1, max(1, article))
        return template.format(
            a=_PARTIES[0][1],
            b=_PARTIES[1][1],
            d=_NUMBERS[n],
            dn=(5, 10, 15, 20, 30, 45, 60, 90)[n],
            amt=f"{r.randint(1, 500) * 10_000:,}",
            pct=r.choice((2, 3, 5, 8, 10, 12.5)),
            ref=f"Clause {ref_article}.{r.randint(1, 4)}",
            term=r.choice(_DEFINED)[0],
        )


def make_contract(*, max_bytes: int = 0, max_lines: int = 0, seed: int = 7) -> str:
    """A synthetic supply contract of at least `max_bytes` bytes or `max_lines` lines."""
    w = _Writer(seed)
    (n1, l1, d1), (n2, l2, d2) = _PARTIES
    w.add("MASTER SUPPLY AGREEMENT")
    w.add(
        f"This MASTER SUPPLY AGREEMENT is entered into as of April 1, 2025, by and between "
        f'{n1}, {d1} (the "{l1}"), and {n2}, {d2} (the "{l2}").'
    )
    w.add("RECITALS")
    w.add(f"WHEREAS, the {l1} manufactures precision housings for industrial sensors; and")
    w.add(f"WHEREAS, the {l2} wishes to purchase such housings on the terms set out below.")
    w.add("NOW, THEREFORE, the parties agree as follows:")
    w.add("1. DEFINITIONS")
    for i, (term, meaning) in enumerate(_DEFINED, 1):
        w.add(f'1.{i} "{term}" means {meaning}.')

    def done() -> bool:
        if max_bytes and w.size >= max_bytes:
            return True
        return bool(max_lines and w.lines >= max_lines) or not (max_bytes or max_lines)

    # Clause numbers stop at 999 (as in contracts, and as the parser reads them): a large
    # document has at most ~300 articles and more clauses in each.
    clauses = max(max_bytes / 420, max_lines / 2.6)
    per_article = max(5.0, clauses / 300)
    article = 1
    while not done():
        article += 1
        heading = _HEADINGS[(article - 2) % len(_HEADINGS)]
        w.add(f"{article}. {heading}")
        n_subs = w.rnd.randint(int(per_article * 0.6), int(per_article * 1.4))
        for sub in range(1, min(n_subs, 998) + 1):
            first, second = w.rnd.sample(_CLAUSES, 2)
            text = w.fill(first, article)
            if w.rnd.random() < 0.5:
                text += " " + w.fill(second, article)
            if w.rnd.random() < 0.2:
                items = w.rnd.sample(_ITEMS, 3)
                lettered = [
                    f"    ({c}) {w.fill(t, article)};" for c, t in zip("abc", items, strict=True)
                ]
                text += " The following apply:\n" + "\n".join(lettered)
            w.add(f"{article}.{sub} {text}")
            if done():
                break
    w.add(f"IN WITNESS WHEREOF, the parties have executed this Agreement as of April 1, 2025.\n\n"
          f"{n1.upper()}          {n2.upper()}\n\nBy: ______________          By: ______________")  # fmt: skip
    return "\n".join(w.parts)


# --------------------------------------------------------------------------------------------
# One review, in a child process
# --------------------------------------------------------------------------------------------


def _child(path: Path, work: Path, profile: int) -> None:
    """Review `path` (generic, neutral, approve all) and print the phase timings as JSON."""
    import asyncio
    import cProfile
    import pstats

    from contract_review import review as review_mod
    from contract_review.config import Settings
    from contract_review.exports import outputs as outputs_mod
    from contract_review.review import ReviewOptions, start_review

    phases: dict[str, float] = {}

    def timed(name: str, module: Any, attr: str) -> None:
        fn = getattr(module, attr)

        def wrapper(*args: Any, **kwargs: Any) -> Any:
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                phases[name] = phases.get(name, 0.0) + time.perf_counter() - start

        setattr(module, attr, wrapper)

    timed("read+parse", review_mod, "_documents")
    timed("parties", review_mod, "_our_side")
    timed("checklist", review_mod, "_initial_state")
    timed("inventory", review_mod, "_inventory")
    timed("reports", outputs_mod, "write_reports")
    timed("redline", outputs_mod, "_write_word")  # redline.docx and clean.docx
    timed("lists", outputs_mod, "_write_issues_list")
    timed("xlsx", outputs_mod, "_write_xlsx")
    timed("outputs", review_mod, "_write_outputs")

    settings = Settings(state_dir=work / "state", use_react_agent=False, llm_base_url=None)
    options = ReviewOptions(
        file=path, domain="generic", party="neutral", approve="all", out=work / "out"
    )
    prof = cProfile.Profile() if profile else None
    start = time.perf_counter()
    if prof is not None:
        prof.enable()
    asyncio.run(start_review(options, settings=settings))
    if prof is not None:
        prof.disable()
    total = time.perf_counter() - start
    phases["graph+rest"] = total - sum(
        v
        for k, v in phases.items()
        if k not in ("inventory", "reports", "redline", "lists", "xlsx")
    )
    print(json.dumps({"total": total, "phases": phases}), flush=True)
    if prof is not None:
        print("---profile---", flush=True)
        pstats.Stats(prof, stream=sys.stdout).sort_stats("cumulative").print_stats(profile)


def _run_child(
    path: Path, work: Path, timeout: float, profile: int
) -> tuple[dict[str, Any] | str, float, float, str]:
    """(the child's figures or why it failed, wall seconds, peak RSS in MB, profile text)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("LLM_")}
    env["MAX_FILE_MB"] = str(max(50.0, path.stat().st_size / MB + 1))
    env["MAX_TEXT_MB"] = env["MAX_FILE_MB"]  # the bench measures beyond the default limit
    env["USE_REACT_AGENT"] = "false"
    cmd = [sys.executable, __file__, "--child", str(path), "--work", str(work)]
    if profile:
        cmd += ["--profile-top", str(profile)]
    out_file = work / "child.out"
    err_file = work / "child.err"
    start = time.perf_counter()
    with out_file.open("w") as out, err_file.open("w") as err:
        proc = subprocess.Popen(cmd, stdout=out, stderr=err, env=env)
        status, rusage = 0, None
        while True:
            pid, status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.perf_counter() - start > timeout:
                proc.kill()
                _, status, rusage = os.wait4(proc.pid, 0)
                proc.returncode = -9
                wall = time.perf_counter() - start
                return f"timeout (> {timeout:.0f} s)", wall, rusage.ru_maxrss / 1024, ""
            time.sleep(0.05)
        proc.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - start
    rss = rusage.ru_maxrss / 1024
    text = out_file.read_text()
    head, _, prof = text.partition("---profile---")
    if proc.returncode != 0:
        tail = err_file.read_text().strip().splitlines()[-1:] or ["?"]
        return f"exit {proc.returncode}: {tail[0][:100]}", wall, rss, ""
    return json.loads(head.strip().splitlines()[-1]), wall, rss, prof


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def _numbers(text: str, kind: type[float] | type[int]) -> list[Any]:
    return [kind(x) for x in text.split(",") if x.strip()]


def main() -> None:
    """Generate the documents, review each in a fresh process and print the figures."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--sizes", default="1,5,20,50", help="target sizes in MB, comma-separated")
    ap.add_argument("--lines", default="10000,50000,100000,200000", help="target line counts")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per review")
    ap.add_argument("--profile", default="", help="label of one run to profile (e.g. 5MB)")
    ap.add_argument("--profile-top", type=int, default=0, help=argparse.SUPPRESS)
    ap.add_argument("--keep", type=Path, help="write the generated documents into this folder")
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        _child(args.child, args.work, args.profile_top)
        return
    runs = [(f"{s:g}MB", {"max_bytes": int(s * MB)}) for s in _numbers(args.sizes, float)]
    runs += [(f"{n}L", {"max_lines": n}) for n in _numbers(args.lines, int)]
    phase_names = ["read+parse", "parties", "checklist", "graph+rest", "inventory", "reports",
                   "redline", "lists", "xlsx"]  # fmt: skip
    header = f"{'doc':>9} {'MB':>7} {'lines':>8} {'clauses':>8} {'seconds':>8} {'s/MB':>7} "
    header += f"{'RSS MB':>7}  " + " ".join(f"{p:>10}" for p in phase_names)
    print(header, flush=True)
    profiles = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, target in runs:
            work = Path(tmp) / label
            work.mkdir()
            text = make_contract(**target)
            path = (args.keep or work) / f"large_{label}.txt"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
            size = path.stat().st_size / MB
            lines = text.count("\n") + 1
            clauses = sum(1 for line in text.splitlines() if line[:1].isdigit())
            del text
            top = 40 if args.profile == label else 0
            result, wall, rss, prof = _run_child(path, work, args.timeout, top)
            row = f"{label:>9} {size:7.2f} {lines:8d} {clauses:8d} "
            if isinstance(result, str):
                print(row + f"{wall:8.1f} {'':>7} {rss:7.0f}  {result}", flush=True)
                continue
            phases = result["phases"]
            row += f"{wall:8.1f} {wall / size:7.2f} {rss:7.0f}  "
            row += " ".join(f"{phases.get(p, 0.0):10.2f}" for p in phase_names)
            print(row, flush=True)
            if prof:
                profiles.append((label, prof))
    for label, prof in profiles:
        print(f"\ncProfile of {label} (cumulative):")
        print(prof)


if __name__ == "__main__":
    main()
