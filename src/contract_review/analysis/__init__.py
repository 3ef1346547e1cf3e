"""Pure analysis engines: functions over text, clause structures, parties and positions.

What skills, plugins, the graph and the exports share — financial terms and numbers in
context, position checks, deviation from a baseline, baseline comparison, criteria matching,
reference search, redline drafting — lives here, with no skill schemas and no I/O. A skill is
a thin adapter over it (input schema → analysis call → output schema).

This layer imports nothing from `skills`, `graph`, `exports`, `plugins` or the interfaces
(`tests/test_architecture.py` checks it); the party it judges for arrives resolved
(`parties.PartyRoles`), never as a word to resolve.
"""
