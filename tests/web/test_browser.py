"""The page in a real browser (Playwright driving Debian's Chromium): sign in, upload the FIDIC
sample, watch it run, approve one redline, reject one with feedback, edit one, approve the rest,
download redline.docx and find exactly those decisions in it; and a portfolio of two contracts,
watched to its end, its workbook downloaded."""

from __future__ import annotations

import os
import shutil
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from contract_review.exports.redline_docx import accept_all_text
from contract_review.testing import running_server
from tests.conftest import EXAMPLES

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="Debian's chromium is not installed")
SHOTS = os.environ.get("WEB_SCREENSHOTS")
"""A folder to keep the page's screenshots in (docs/img when regenerating the docs)."""


@pytest.fixture
def server(tmp_path: Path) -> Iterator[str]:
    env = {
        "STATE_DIR": str(tmp_path / "state"),
        "API_KEY": "browser-key",
        "USE_REACT_AGENT": "false",
        "LLM_BASE_URL": "",
    }
    with running_server(env) as running:
        yield running.url


def _shot(page: object, name: str) -> None:
    if SHOTS:
        page.screenshot(path=str(Path(SHOTS) / name), full_page=False)  # type: ignore[attr-defined]


def _review_fidic_sample(page: Any, server: str) -> None:
    """Sign in and start a review of the FIDIC sample for the Contractor."""
    from playwright.sync_api import expect

    page.goto(server)
    page.fill("#key", "browser-key")
    page.click("#signin-button")
    expect(page.locator("#upload")).to_be_visible()
    page.set_input_files(
        "#contract", str(EXAMPLES / "fidic" / "particular_conditions_amending_en.txt")
    )
    page.set_input_files("#baseline", str(EXAMPLES / "fidic" / "general_conditions_en.txt"))
    page.fill("#party", "Contractor")
    page.select_option("#domain", "fidic")
    page.click("#upload-form button[type=submit]")


def _download_redline(page: Any, folder: Path) -> Path:
    """Wait for the finished review's redline.docx link and download it into `folder`."""
    from playwright.sync_api import expect

    link = page.locator('#downloads a[href$="redline.docx"]')
    expect(link).to_be_visible(timeout=60_000)
    with page.expect_download() as info:
        link.click()
    path = folder / "redline.docx"
    info.value.save_as(path)
    return path


def test_a_lawyer_reviews_and_decides_in_the_browser(server: str, tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1366, "height": 900}, accept_downloads=True)
        _review_fidic_sample(page, server)
        # live progress: clause events arrive, then the redlines wait for a decision
        expect(page.locator("#log div").first).to_be_visible(timeout=60_000)
        redlines = page.locator("#pending .redline")
        expect(redlines.first).to_be_visible(timeout=60_000)
        _shot(page, "web-approval.png")
        count = redlines.count()
        assert count >= 3
        ids = [redlines.nth(i).get_attribute("data-diff") for i in range(count)]
        first, second, third = ids[0], ids[1], ids[2]
        page.locator(f'[data-diff="{first}"] button[data-act=approve]').click()
        box = page.locator(f'[data-diff="{second}"]')
        box.locator('[data-field="feedback"]').fill("Keep the drafting")
        box.locator("button[data-act=reject]").click()
        box = page.locator(f'[data-diff="{third}"]')
        box.locator('[data-field="text"]').fill("within 35 days")
        box.locator("button[data-act=edit]").click()
        for diff_id in ids[3:]:
            page.locator(f'[data-diff="{diff_id}"] button[data-act=approve]').click()
        expect(page.locator("#risks .clause").first).to_be_visible(timeout=90_000)
        page.evaluate("window.scrollTo(0, 0)")
        _shot(page, "web-complete.png")
        path = _download_redline(page, tmp_path)
        browser.close()

    # the Word file holds exactly those decisions: approved and edited changes as tracked
    # amendment instructions, the rejected one as none, its feedback in its comment
    accepted = accept_all_text(path)
    instructions = [line for line in accepted.splitlines() if ": delete " in line]
    assert len(instructions) == count - 1
    assert any('"within 35 days"' in line for line in instructions)
    with zipfile.ZipFile(path) as z:
        comments = z.read("word/comments.xml").decode()
    assert "Keep the drafting" in comments
    assert "Rejected by default" in comments


def test_a_portfolio_is_uploaded_watched_and_downloaded(server: str, tmp_path: Path) -> None:
    from openpyxl import load_workbook
    from playwright.sync_api import expect, sync_playwright

    contracts = [
        EXAMPLES / "generic" / "supply_agreement_en.txt",
        EXAMPLES / "generic" / "services_agreement_en.md",
    ]
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1366, "height": 900}, accept_downloads=True)
        page.goto(server)
        page.fill("#key", "browser-key")
        page.click("#signin-button")
        page.click('#tabs button[data-view="portfolio"]')
        expect(page.locator("#pf-form")).to_be_visible()
        expect(page.locator("#upload")).to_be_hidden()
        page.set_input_files("#pf-files", [str(c) for c in contracts])
        page.fill("#pf-party", "Buyer|Customer|Client")
        page.click("#pf-form button[type=submit]")
        expect(page.locator("#pf-view")).to_be_visible()
        expect(page.locator("#pf-progress")).to_have_attribute("max", "2")
        # polled every second until complete: a row per contract, then the workbook
        rows = page.locator("#pf-rows tr")
        expect(rows).to_have_count(2, timeout=60_000)
        expect(page.locator("#pf-status")).to_contain_text("2/2")
        expect(page.locator("#pf-progress")).to_have_attribute("value", "2")
        expect(page.locator("#pf-list li")).to_have_count(1)
        link = page.locator('#pf-downloads a[href$="portfolio.xlsx"]')
        expect(link).to_be_visible()
        _shot(page, "web-portfolio.png")
        with page.expect_download() as info:
            link.click()
        path = tmp_path / "portfolio.xlsx"
        info.value.save_as(path)
        browser.close()

    sheet = load_workbook(path)["Contracts"]
    header = [c.value for c in sheet[1]]
    table = {
        Path(str(r[0])).name: dict(zip(header, r, strict=True))
        for r in sheet.iter_rows(min_row=2, values_only=True)
    }
    assert set(table) == {c.name for c in contracts}
    assert {row["Status"] for row in table.values()} == {"done"}


def test_a_rejection_with_feedback_is_redrafted_on_the_page(server: str, tmp_path: Path) -> None:
    """Reject the claims time bar's redline with an instruction, approve the rest: the
    redraft comes back on the page as a new redline to decide, verified; approved, it is in
    the Word file and the rejected wording is not."""
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1366, "height": 900}, accept_downloads=True)
        _review_fidic_sample(page, server)
        redlines = page.locator("#pending .redline")
        expect(redlines.first).to_be_visible(timeout=60_000)
        ids = [redlines.nth(i).get_attribute("data-diff") for i in range(redlines.count())]
        time_bar = page.locator("#pending .redline", has_text="20.1").first
        rejected = time_bar.get_attribute("data-diff")
        time_bar.locator('[data-field="feedback"]').fill('replace "14" with "35"')
        time_bar.locator("button[data-act=reject]").click()
        for diff_id in ids:
            if diff_id != rejected:
                page.locator(f'[data-diff="{diff_id}"] button[data-act=approve]').click()
        # the redraft: a redline the page had not shown, for the same clause
        unseen = "".join(f':not([data-diff="{i}"])' for i in ids)
        redraft = page.locator(f"#pending .redline{unseen}")
        expect(redraft.first).to_be_visible(timeout=60_000)
        expect(redraft.first).to_contain_text("20.1")
        expect(redraft.first).to_contain_text("35")
        redraft.first.locator("button[data-act=approve]").click()
        path = _download_redline(page, tmp_path)
        browser.close()
    accepted = accept_all_text(path)
    assert any("20.1" in line and "35" in line for line in accepted.splitlines())
