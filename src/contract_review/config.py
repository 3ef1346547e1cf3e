"""All tunable limits and switches of the engine, in one settings object.

Values come from environment variables (or a `.env` file in the working directory); the README
lists them. `get_settings()` is cached: call `get_settings.cache_clear()` after changing the
environment in tests.
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from pydantic import Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    """Engine settings; each field maps to the upper-case environment variable of its name."""

    model_config = SettingsConfigDict(env_file=".env", extra="ignore", case_sensitive=False)

    # --- document intake limits (hostile files must fail fast, never hang) ---
    max_file_mb: float = Field(50.0, gt=0, description="Largest input file accepted, in MB.")
    max_text_mb: float = Field(
        20.0,
        gt=0,
        description="Most text a document may hold once read, in MB (UTF-8): a review takes "
        "about 5 s and 50 MB of memory per MB of text (bench/large_docs.py), so 20 MB is "
        "reviewed in under 2 minutes and 1 GB.",
    )
    max_uncompressed_mb: float = Field(
        200.0, gt=0, description="Largest total uncompressed size of a .docx package, in MB."
    )
    max_zip_entries: int = Field(5000, gt=0, description="Most entries a .docx zip may hold.")
    max_compression_ratio: float = Field(
        200.0, gt=1, description="Largest uncompressed/compressed ratio of one .docx zip entry."
    )
    max_pdf_pages: int = Field(2000, gt=0, description="Most PDF pages read.")
    parse_timeout_seconds: float = Field(
        60.0, gt=0, description="Wall-clock limit for reading one PDF (in a worker process)."
    )
    pdf_worker_memory_mb: int = Field(
        2048, gt=0, description="Address-space limit of the PDF worker process, in MB."
    )

    # --- skills ---
    skill_timeout_seconds: float = Field(
        20.0, gt=0, description="Time limit of one skill call (local or remote)."
    )
    remote_skills_base_url: str | None = Field(
        None, description="Base URL of the remote skill workflow service (Refly-style)."
    )
    remote_skills_api_key: SecretStr | None = Field(
        None, description="Bearer token for the remote skill service (never shown or logged)."
    )
    remote_skills_poll_interval: float = Field(
        0.5, gt=0, description="Seconds between polls of a running remote workflow."
    )

    # --- reviews ---
    api_keys: SecretStr | None = Field(
        None,
        description="Keys of the web API as name=key pairs, comma-separated (API_KEYS); a "
        "task is visible only to the key name that created it.",
    )
    api_key: SecretStr | None = Field(
        None, description="One web API key, named 'default' (API_KEY)."
    )
    web_workers: int = Field(
        2, ge=1, description="Worker processes that run the web app's reviews (WEB_WORKERS)."
    )
    web_queue_limit: int = Field(
        500, ge=1, description="Reviews the web app accepts waiting for a worker (WEB_QUEUE_LIMIT)."
    )
    redline_author: str = Field(
        "",
        description="Name on the Word file's tracked changes and comments (REDLINE_AUTHOR); "
        "default: the reviewer, else the OS user.",
    )
    state_dir: Path = Field(
        Path(".contract-review"),
        description="Where reviews keep their checkpoints (SQLite) and task manifests.",
    )
    review_max_concurrency: int = Field(
        8, ge=1, le=64, description="Clauses reviewed at the same time."
    )
    postgres_url: SecretStr | None = Field(
        None,
        description="Use PostgreSQL checkpoints at this URL instead of SQLite (it may hold a "
        "password: never shown or logged).",
    )

    # --- queue (Celery): batch and web reviews on workers of any machine ---
    celery_broker_url: str | None = Field(
        None,
        description="Celery broker (CELERY_BROKER_URL, e.g. redis://127.0.0.1:6379/0): set, "
        "`batch --queue` and the web app send reviews to `contract-review worker` processes "
        "(they need POSTGRES_URL too: checkpoints, locks and results).",
    )
    celery_queue: str = Field(
        "contract-review", description="Name of the Celery queue the reviews go to."
    )
    celery_visibility_timeout: float = Field(
        3600.0,
        gt=0,
        description="Seconds before a review taken by a worker that vanished (machine lost) "
        "is delivered again; longer than the longest review. A killed pool process is "
        "re-delivered at once.",
    )
    celery_lock_retry_seconds: float = Field(
        2.0,
        gt=0,
        description="Wait before a delivered review whose contract another worker holds is "
        "tried again.",
    )

    # --- ReAct agent (SPEC-20/35): LLM mode when an endpoint is configured ---
    use_react_agent: bool = Field(True, description="Let an LLM agent analyse clauses.")
    react_max_iterations: int = Field(5, ge=1, description="Most agent rounds per clause.")
    react_temperature: float = Field(0.1, ge=0, le=2, description="Agent sampling temperature.")
    react_clause_timeout: float = Field(30.0, gt=0, description="Seconds per clause for the agent.")
    orchestrator: bool = Field(
        True,
        description="Plan the review (SPEC-21): depth, tools and rounds per clause, start order, "
        "one re-plan on a high risk; with an LLM the model plans, else the playbook priorities. "
        "Off: every clause gets the standard agent budget, in document order.",
    )
    orchestrator_max_clauses: int = Field(
        300, ge=1, description="Clauses the model plans at most (the rest by the playbook)."
    )
    react_max_tool_calls_per_step: int = Field(
        8, ge=1, description="Tool calls run per agent round; extra calls get an error result."
    )
    llm_max_consecutive_failures: int = Field(
        3,
        ge=1,
        description="Clauses in a row whose agent timed out or hit an LLM error before the "
        "review stops asking the endpoint (rules only from then on, one warning).",
    )
    llm_stream: bool = Field(
        True, description="Stream model answers (token events); off for servers that mis-stream."
    )

    # --- LLM endpoint (any OpenAI-compatible chat-completions server) ---
    llm_base_url: str | None = Field(
        None, description="Base URL of the OpenAI-compatible LLM API; unset disables LLM mode."
    )
    llm_api_key: SecretStr | None = Field(
        None, description="API key sent to the LLM endpoint (never shown or logged)."
    )
    llm_model: str = Field("gpt-4o-mini", description="Chat model name sent with each request.")
    llm_timeout_seconds: float = Field(
        60.0, gt=0, description="Time limit of one LLM HTTP request, in seconds."
    )
    llm_max_retries: int = Field(
        3,
        ge=0,
        description="Retries of a failed LLM request (429, 5xx, timeouts, lost connections).",
    )
    llm_max_answer_tokens: int = Field(
        2048,
        ge=16,
        description="Longest answer asked of the model per call (LLM_MAX_ANSWER_TOKENS): a "
        "small local model that never stops would hold its clause until the timeout.",
    )
    llm_backoff_base_seconds: float = Field(
        0.5,
        ge=0,
        description="First retry delay of the LLM client; doubles per retry, with jitter.",
    )

    def named_api_keys(self) -> dict[str, str]:
        """The web API keys by name (`API_KEYS` pairs, and `API_KEY` as 'default'); a
        malformed pair is a ValueError naming it."""
        keys: dict[str, str] = {}
        if self.api_keys is not None:
            for pair in self.api_keys.get_secret_value().split(","):
                if not pair.strip():
                    continue
                name, sep, key = pair.partition("=")
                if not sep or not name.strip() or not key.strip():
                    raise ValueError("API_KEYS must be name=key pairs separated by commas")
                keys[name.strip()] = key.strip()
        if self.api_key is not None and self.api_key.get_secret_value().strip():
            keys.setdefault("default", self.api_key.get_secret_value().strip())
        return keys

    @property
    def max_file_bytes(self) -> int:
        """`max_file_mb` in bytes."""
        return int(self.max_file_mb * 1024 * 1024)

    @property
    def max_text_bytes(self) -> int:
        """`max_text_mb` in bytes."""
        return int(self.max_text_mb * 1024 * 1024)

    @property
    def max_uncompressed_bytes(self) -> int:
        """`max_uncompressed_mb` in bytes."""
        return int(self.max_uncompressed_mb * 1024 * 1024)


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process-wide settings, read once from the environment."""
    return Settings()
