"""Playbooks: a domain's positions as data (`schema`), read from and written to files
(`files`). Built-in playbooks ship with the domain plugins; `--criteria` loads the user's."""

from __future__ import annotations

from .files import dump_playbook, load_playbook, packaged_playbook
from .parse import PlaybookError, parse_playbook
from .schema import (
    ANY_GROUND,
    BREADTH,
    Check,
    Level,
    NumberCheck,
    PartyCheck,
    Playbook,
    Position,
    Presence,
    Recognition,
    Remembered,
    Wording,
    any_of,
    applicable,
    merge_positions,
)

__all__ = [
    "ANY_GROUND",
    "BREADTH",
    "Check",
    "Level",
    "NumberCheck",
    "PartyCheck",
    "Playbook",
    "PlaybookError",
    "Position",
    "Presence",
    "Recognition",
    "Remembered",
    "Wording",
    "any_of",
    "applicable",
    "dump_playbook",
    "load_playbook",
    "merge_positions",
    "packaged_playbook",
    "parse_playbook",
]
