"""Running reviews as jobs, below the interfaces that start them (the batch, the web app, the
CLI): one contract of a batch or one start/resume of a review task, the run records and
per-contract locks of queued work, the run-once wrapper (attempts, retries) and the Celery app
with its tasks.

Nothing here imports `batch`, `web`, `cli` or the portfolio export: they call in, never the
other way round. The modules import their heavy libraries (Celery, the engine) inside the
functions that use them, so importing one stays cheap.
"""
