"""Errors before work: a bad option is one `error:` line and exit 2, before any document is
read or any task exists; `--help` shows the choices, offers shell completion and stays light."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import EXAMPLES, run_cli

SUPPLY = str(EXAMPLES / "generic" / "supply_agreement_en.txt")
HEAVY = ("langgraph", "langsmith", "openai", "docx", "pdfplumber", "jieba", "bm25s", "openpyxl")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (("--out", "{file}"), "is a file, not a folder"),
        (("--out", "{file}/below"), "cannot write there"),
        (("--out", "/proc/1/no-such-folder/out"), "cannot write there"),
        (("--domain", "nonsense"), "Invalid value for '--domain'"),
        (("--subtype", "nonsense"), "Invalid value for '--subtype'"),
        (("--domain", "fidic", "--subtype", "spa"), "--subtype spa is not a subtype of fidic"),
        (("--language", "fr"), "Invalid value for '--language'"),
        (("--approve", "maybe"), "Invalid value for '--approve'"),
        (("--criteria", "{missing}"), "--criteria"),
        (("--reference", "{missing}"), "--reference"),
        (("--baseline", "{missing}"), "--baseline"),
        (("--criteria", "{bad_playbook}"), "playbook.yaml: expected a list of criteria"),
        (("--party", "Nobody In Particular"), "matches no party"),
        (("--no-such-option",), "No such option"),
    ],
)
def test_a_bad_review_option_is_one_error_line_before_any_work(
    tmp_path: Path, options: tuple[str, ...], message: str
) -> None:
    a_file = tmp_path / "a-file.txt"
    a_file.write_text("not a folder", encoding="utf-8")
    bad_playbook = tmp_path / "playbook.yaml"
    bad_playbook.write_text("domain: generic\nname: x\n", encoding="utf-8")
    values = {"file": str(a_file), "missing": str(tmp_path / "nope.txt")}
    values["bad_playbook"] = str(bad_playbook)
    args = [o.format(**values) for o in options]
    if "--party" not in args:
        args += ["--party", "Buyer"]
    if "--out" not in args:
        args += ["--out", str(tmp_path / "out")]
    done = run_cli(tmp_path, "review", SUPPLY, "--approve", "all", *args)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("error: ")
    assert message in lines[0]
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "state" / "tasks").exists()  # no task was started
    assert not list((tmp_path / "out").glob("*")) if (tmp_path / "out").exists() else True


def test_other_commands_check_domain_and_subtype(tmp_path: Path) -> None:
    for args in (
        ("skills", "list", "--domain", "nope"),
        ("checklist", SUPPLY, "--subtype", "nonsense"),
        ("checklist", SUPPLY, "--domain", "fidic", "--subtype", "sha"),
        ("playbook", "show", "--domain", "nope"),
        ("inventory", SUPPLY, "--domain", "nope"),
    ):
        done = run_cli(tmp_path, *args)
        assert done.returncode == 2, (args, done.stderr)
        assert done.stderr.startswith("error: "), done.stderr
        assert len(done.stderr.strip().splitlines()) == 1


def test_help_shows_the_choices_and_offers_completion(tmp_path: Path) -> None:
    review = run_cli(tmp_path, "review", "--help")
    assert review.returncode == 0
    for choices in ("generic|fidic|sha_spa", "interactive|all|none", "auto|en|zh-CN"):
        assert choices in review.stdout, choices
    top = run_cli(tmp_path, "--help")
    assert "--install-completion" in top.stdout
    assert "--show-completion" in top.stdout


def test_help_builds_no_settings_and_loads_no_engine_library() -> None:
    probe = (
        "import sys, json\n"
        "from contract_review import config\n"
        "from contract_review.cli import main\n"
        "sys.argv = ['contract-review', 'review', '--help']\n"
        "try:\n    main()\nexcept SystemExit:\n    pass\n"
        "print(json.dumps({'settings': config.get_settings.cache_info().currsize,"
        " 'modules': sorted({m.split('.')[0] for m in sys.modules})}))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    facts = json.loads(done.stdout.strip().splitlines()[-1])
    assert facts["settings"] == 0
    assert not set(facts["modules"]) & set(HEAVY), set(facts["modules"]) & set(HEAVY)
