"""A real `contract-review serve` in a subprocess, for browser tests and the load benchmark."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager

import httpx

from ._endpoint import free_port

__all__ = ["WebServer", "running_server"]


class WebServer:
    """A running server: its URL and its process."""

    def __init__(self, url: str, process: subprocess.Popen[bytes]) -> None:
        """The server at `url`, run by `process`."""
        self.url = url
        self.process = process


@contextmanager
def running_server(env: dict[str, str], timeout: float = 60) -> Iterator[WebServer]:
    """`contract-review serve` on a free loopback port with `env` added to the environment
    (STATE_DIR, API_KEY, …); ready (its /health answers) when entered, stopped when left."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "contract_review.cli", "serve", "--port", str(port)],
        env={**os.environ, **env},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                    break
            except httpx.HTTPError:
                pass
            if process.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start (exit {process.poll()})")
            time.sleep(0.2)
        yield WebServer(url, process)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
