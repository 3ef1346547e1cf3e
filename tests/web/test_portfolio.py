"""Portfolios over the HTTP API: a zip of contracts (one corrupt, one not a contract) into one
workbook, visible only to its key; hostile zips refused with nothing kept; downloads only once
complete; a restarted server runs an unfinished portfolio again."""

from __future__ import annotations

import io
import json
import stat
import time
import zipfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from openpyxl import load_workbook

from contract_review.web.app import create_app
from tests.conftest import EXAMPLES
from tests.web.test_api import ALICE, BOB, _settings

SUPPLY = EXAMPLES / "generic" / "supply_agreement_en.txt"
SERVICES = EXAMPLES / "generic" / "services_agreement_en.md"
PARTY = "Buyer|Customer|Client"


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with TestClient(create_app(_settings(tmp_path))) as c:
        yield c


def _root(c: TestClient) -> Path:
    return Path(c.app.state.web.settings.state_dir) / "web" / "portfolios"  # type: ignore[attr-defined]


def _zip(entries: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        for name, data in entries.items():
            z.writestr(name, data)
    return buffer.getvalue()


def _post(
    c: TestClient,
    files: list[tuple[str, bytes]],
    headers: dict[str, str] = ALICE,
    **data: str,
) -> Any:
    return c.post(
        "/api/portfolios",
        headers=headers,
        data={"party": PARTY, **data},
        files=[("files", (name, content)) for name, content in files],
    )


def _until(c: TestClient, portfolio_id: str, done: Any) -> dict[str, Any]:
    deadline = time.monotonic() + 60
    state: dict[str, Any] = {}
    while time.monotonic() < deadline:
        state = c.get(f"/api/portfolios/{portfolio_id}", headers=ALICE).json()
        if done(state):
            return state
        time.sleep(0.1)
    pytest.fail(f"portfolio {portfolio_id} did not get there: {state}")


def _ended(state: dict[str, Any]) -> bool:
    return state["status"] in ("complete", "failed")


def test_a_zip_of_contracts_becomes_one_workbook(client: TestClient) -> None:
    archive = _zip(
        {
            "data room/supply.txt": SUPPLY.read_bytes(),
            "data room/services.md": SERVICES.read_bytes(),
            "data room/scan.pdf": bytes(range(256)) * 20,  # garbage, not a PDF
            "data room/notes.png": b"\x89PNG\r\n\x1a\n",  # not a contract: ignored
        }
    )
    r = _post(client, [("room.zip", archive)])
    assert r.status_code == 202, r.text
    created = r.json()
    portfolio = created["portfolio_id"]
    assert created["status"] == "queued"
    assert (created["total"], created["ignored"]) == (3, 1)
    # nothing to download yet
    for name in ("portfolio.xlsx", "portfolio.json"):
        assert client.get(f"/api/portfolios/{portfolio}/{name}", headers=ALICE).status_code == 409
    # another key sees nothing of it
    for method, path in [
        ("GET", f"/api/portfolios/{portfolio}"),
        ("GET", f"/api/portfolios/{portfolio}/portfolio.xlsx"),
        ("GET", f"/api/portfolios/{portfolio}/portfolio.json"),
        ("DELETE", f"/api/portfolios/{portfolio}"),
    ]:
        assert client.request(method, path, headers=BOB).status_code == 404, path
    assert client.get("/api/portfolios", headers=BOB).json() == []
    # a running portfolio is not deleted
    running = _until(client, portfolio, lambda s: s["status"] != "queued")
    if running["status"] == "running":
        assert client.delete(f"/api/portfolios/{portfolio}", headers=ALICE).status_code == 409
    state = _until(client, portfolio, _ended)
    assert state["status"] == "complete", state
    assert (state["done"], state["total"], state["errors"]) == (3, 3, 1)
    rows = {row["file"]: row for row in state["rows"]}
    assert set(rows) == {
        "room/data room/supply.txt",
        "room/data room/services.md",
        "room/data room/scan.pdf",
    }
    assert rows["room/data room/scan.pdf"]["status"] == "error"
    assert "not a readable PDF" in rows["room/data room/scan.pdf"]["error"]
    supply = rows["room/data room/supply.txt"]
    assert supply["status"] == "done"
    assert supply["counts"]["medium"] >= 1
    listed = client.get("/api/portfolios", headers=ALICE).json()
    assert [p["portfolio_id"] for p in listed] == [portfolio]
    assert "rows" not in listed[0]

    workbook = client.get(f"/api/portfolios/{portfolio}/portfolio.xlsx", headers=ALICE)
    assert workbook.status_code == 200
    book = load_workbook(io.BytesIO(workbook.content))
    sheet = book["Contracts"]
    header = [c.value for c in sheet[1]]
    table = {
        Path(str(r[0])).name: dict(zip(header, r, strict=True))
        for r in sheet.iter_rows(min_row=2, values_only=True)
    }
    assert set(table) == {"supply.txt", "services.md", "scan.pdf"}  # one row per contract
    assert table["scan.pdf"]["Status"] == "error"
    assert "not a readable PDF" in str(table["scan.pdf"]["Error / same as"])
    assert table["supply.txt"]["Status"] == "done"
    server = str(client.app.state.web.settings.state_dir)  # type: ignore[attr-defined]
    for row in table.values():  # the client's own names; no folder of the server
        assert str(row["File"]).startswith("in/"), row["File"]
        assert server not in str(row["File"]) + str(row["Outputs"] or "")
    data = client.get(f"/api/portfolios/{portfolio}/portfolio.json", headers=ALICE)
    assert len(json.loads(data.content)) == 3

    assert client.delete(f"/api/portfolios/{portfolio}", headers=ALICE).status_code == 204
    assert client.get(f"/api/portfolios/{portfolio}", headers=ALICE).status_code == 404
    assert not (_root(client) / portfolio).exists()


def _symlink_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as z:
        link = zipfile.ZipInfo("link.txt")
        link.external_attr = (stat.S_IFLNK | 0o777) << 16
        z.writestr(link, "/etc/passwd")
    return buffer.getvalue()


def test_hostile_or_empty_uploads_are_refused_and_nothing_is_kept(
    client: TestClient, tmp_path: Path
) -> None:
    good = ("supply.txt", SUPPLY.read_bytes())
    bomb = _zip({"bomb.txt": b"\0" * (20 << 20)})  # ~20 KB inflating to 20 MB
    refused = {
        "escape": [good, ("up.zip", _zip({"ok.txt": b"1. Terms\n", "../x.txt": b"1. Out\n"}))],
        "absolute": [("abs.zip", _zip({"/tmp/x.txt": b"1. Out\n"}))],
        "link": [("link.zip", _symlink_zip())],
        "bomb": [good, ("bomb.zip", bomb)],
        "not a zip": [good, ("fake.zip", b"this is not a zip archive")],
        "no contract": [("pictures.zip", _zip({"a.png": b"\x89PNG", ".DS_Store": b"x"}))],
    }
    for case, files in refused.items():
        r = _post(client, files)
        assert r.status_code == 422, (case, r.text)
        detail = r.json()["detail"]
        assert isinstance(detail, str)
        assert "\n" not in detail
    assert "unsafe path" in _post(client, refused["escape"]).json()["detail"]
    assert "zip bomb" in _post(client, refused["bomb"]).json()["detail"]
    assert "not a readable zip" in _post(client, refused["not a zip"]).json()["detail"]
    # the form is checked as a review's is
    assert _post(client, [good], domain="nope").status_code == 422
    assert _post(client, [good], party="  ").status_code == 422
    assert _post(client, [("tool.exe", b"MZ")]).status_code == 415
    root = _root(client)
    assert not root.exists() or not any(root.iterdir())
    assert not (tmp_path / "x.txt").exists()
    assert not (tmp_path / "state" / "web" / "x.txt").exists()
    assert client.get("/api/portfolios", headers=ALICE).json() == []


def test_routes_need_a_key_and_ids_their_form(client: TestClient) -> None:
    for method, path in [
        ("GET", "/api/portfolios"),
        ("POST", "/api/portfolios"),
        ("GET", "/api/portfolios/x"),
        ("GET", "/api/portfolios/x/portfolio.xlsx"),
        ("DELETE", "/api/portfolios/x"),
    ]:
        assert client.request(method, path).status_code == 401, path
    for bad in ("x", "..", "20990101-000000-ABCDEF", "20990101-000000-abcdef.."):
        assert client.get(f"/api/portfolios/{bad}", headers=ALICE).status_code == 404, bad
        assert client.delete(f"/api/portfolios/{bad}", headers=ALICE).status_code == 404, bad


def test_a_restarted_server_runs_an_unfinished_portfolio_again(tmp_path: Path) -> None:
    settings = _settings(tmp_path)
    files = [("supply.txt", SUPPLY.read_bytes()), ("services.md", SERVICES.read_bytes())]
    with TestClient(create_app(settings)) as first:
        r = _post(first, files, inventory_only="true")
        assert r.status_code == 202, r.text
        portfolio = r.json()["portfolio_id"]
    # the server stopped before the batch could finish; the next one runs it
    saved = json.loads(
        (tmp_path / "state" / "web" / "portfolios" / portfolio / "state.json").read_text()
    )
    assert saved["status"] in ("queued", "running")
    assert saved["owner"] == "alice"
    with TestClient(create_app(settings)) as second:
        state = _until(second, portfolio, _ended)
        assert state["status"] == "complete", state
        assert state["inventory_only"] is True
        assert sorted(row["file"] for row in state["rows"]) == ["services.md", "supply.txt"]
        assert {row["status"] for row in state["rows"]} == {"done"}
        workbook = second.get(f"/api/portfolios/{portfolio}/portfolio.xlsx", headers=ALICE)
        book = load_workbook(io.BytesIO(workbook.content))
        assert book["Contracts"].max_row == 3  # a header and two contracts
