"""The built-in domains and their subtypes: one table for the plugins that implement them and
for the command line, which offers them as choices and checks them before any work starts
(without loading the plugins)."""

from __future__ import annotations

from enum import StrEnum

from contract_review.errors import InputError

__all__ = ["SUBTYPES", "Domain", "Subtype", "check_domain"]


class Domain(StrEnum):
    """A built-in domain."""

    GENERIC = "generic"
    FIDIC = "fidic"
    SHA_SPA = "sha_spa"


class Subtype(StrEnum):
    """Every subtype of a built-in domain (the command line's choices)."""

    SILVER_BOOK = "silver_book"
    YELLOW_BOOK = "yellow_book"
    RED_BOOK = "red_book"
    SPA = "spa"
    SHA = "sha"


SUBTYPES: dict[str, tuple[str, ...]] = {
    Domain.GENERIC: (),
    Domain.FIDIC: (Subtype.SILVER_BOOK, Subtype.YELLOW_BOOK, Subtype.RED_BOOK),
    Domain.SHA_SPA: (Subtype.SPA, Subtype.SHA),
}
"""Each built-in domain's subtypes (FIDIC books; share purchase or shareholders' agreement)."""


def check_domain(domain: str, subtype: str | None) -> None:
    """An InputError unless `subtype` (if any) is one of the built-in `domain`'s subtypes.
    Domains registered at run time by other plugins are checked by the registry instead."""
    if domain not in SUBTYPES or subtype is None:
        return
    allowed = SUBTYPES[domain]
    if subtype not in allowed:
        choices = ", ".join(allowed) if allowed else "none"
        raise InputError(f"--subtype {subtype} is not a subtype of {domain} (choose: {choices})")
