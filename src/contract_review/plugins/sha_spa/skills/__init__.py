"""Share purchase (SPA) and shareholders' agreement (SHA) skills, domain "sha_spa".

Deterministic, English and Chinese: conditions precedent (`conditions`), warranties
(`reps_warranties`), indemnities and limitations (`indemnity`) and shareholder governance
(`governance`). Each module exposes `REGISTRATION`; the sha_spa plugin registers them.
"""
