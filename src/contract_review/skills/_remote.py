"""Client of the remote skill workflow service (the seeds' "Refly" backend).

Protocol: `POST {base}/v1/workflows/{workflow_id}/runs` with `{"input": {...}}` and a bearer
key. The service answers either at once, `{"status": "succeeded", "output": {...}}`, or with a
run to poll, `{"run_id": "...", "status": "running"}`; then `GET {base}/v1/runs/{run_id}`
until the status is `succeeded` (with `output`) or `failed` (with `error`).
"""

from __future__ import annotations

import asyncio
from typing import Any

import httpx


class RemoteSkillError(Exception):
    """The remote service failed, refused, or answered something unusable."""


class RemoteSkillClient:
    """Runs workflows on the remote service; the caller applies the overall time limit."""

    def __init__(
        self, base_url: str, api_key: str | None = None, *, poll_interval: float = 0.5
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self.api_key = api_key
        self.poll_interval = poll_interval

    def _headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.api_key}"} if self.api_key else {}

    async def run(self, workflow_id: str, payload: dict[str, Any]) -> dict[str, Any]:
        """Run one workflow to completion and return its output object."""
        async with httpx.AsyncClient(headers=self._headers(), timeout=None) as client:
            try:
                resp = await client.post(
                    f"{self.base_url}/v1/workflows/{workflow_id}/runs", json={"input": payload}
                )
                body = _json(resp)
                while body.get("status") not in ("succeeded", "failed"):
                    run_id = body.get("run_id")
                    if not run_id:
                        raise RemoteSkillError("remote service returned no run_id and no result")
                    await asyncio.sleep(self.poll_interval)
                    body = _json(await client.get(f"{self.base_url}/v1/runs/{run_id}"))
            except httpx.HTTPError as exc:
                raise RemoteSkillError(f"remote service unreachable: {exc!s}") from None
        if body["status"] == "failed":
            raise RemoteSkillError(f"remote workflow failed: {body.get('error', 'no reason')}")
        output = body.get("output")
        if not isinstance(output, dict):
            raise RemoteSkillError("remote workflow returned no output object")
        return output


def _json(resp: httpx.Response) -> dict[str, Any]:
    if resp.status_code >= 400:
        raise RemoteSkillError(f"remote service answered HTTP {resp.status_code}")
    try:
        body = resp.json()
    except ValueError:
        raise RemoteSkillError("remote service answered with invalid JSON") from None
    if not isinstance(body, dict):
        raise RemoteSkillError("remote service answered with a non-object")
    return body
