"""ICD-11 coding of predicted / reference diagnosis strings.

Diagnosis evaluation by code maps every diagnosis string to an ICD-11 MMS code and
compares full code strings.  Two interchangeable coders implement
:class:`IcdCoder`:

* :class:`WhoIcdApiCoder` (``icd_who``) -- the paper's method, WHO ICD-API
  auto-code then flexisearch; needs the WHO cloud (OAuth2) or a local WHO
  container.  ``identity["approximate"] is False``.
* :class:`OfflineTitleCoder` (``icd_offline``) -- exact/fuzzy match against
  MMS titles only; an approximation for offline use whose scores are not
  comparable with API-coded ones.  ``identity["approximate"] is True``.

``identity`` is recorded with results so a score can always be traced to the
coder (and release / data version) that produced it.
"""

from __future__ import annotations

from typing import Any, Iterable, Protocol, runtime_checkable

from .icd_offline import OfflineTitleCoder, normalise_title
from .icd_who import IcdServiceError, WhoIcdApiCoder, clean_term

__all__ = [
    "IcdCoder",
    "IcdServiceError",
    "OfflineTitleCoder",
    "WhoIcdApiCoder",
    "code_terms",
    "clean_term",
    "normalise_title",
]


@runtime_checkable
class IcdCoder(Protocol):
    """Maps a diagnosis string to an ICD-11 MMS code (``None`` = no code).

    ``identity`` is a JSON-serialisable description of the coder, e.g.
    ``{"coder": "who-icd-api", "release": "2025-01", "base_url": ..., "approximate": False}``.
    ``code`` raises (e.g. :class:`IcdServiceError`) on service failure rather
    than returning ``None``.
    """

    identity: dict[str, Any]

    def code(self, term: str) -> str | None: ...


def code_terms(coder: IcdCoder, terms: Iterable[str], progress: bool = False) -> dict[str, str | None]:
    """Code each unique term once; returns ``{term: code_or_None}``.

    Uses ``coder.code_many`` (concurrent, e.g. :class:`WhoIcdApiCoder`) when
    the coder has it, otherwise calls ``coder.code`` sequentially with an
    in-memory memo.  A tqdm bar is shown when ``progress`` is true.
    """
    unique = list(dict.fromkeys(terms))
    code_many = getattr(coder, "code_many", None)
    if callable(code_many):
        result = code_many(unique, progress=progress)
        return {t: result.get(t) for t in unique}
    from tqdm import tqdm

    memo: dict[str, str | None] = {}
    for t in tqdm(unique, desc="ICD-11 coding", unit="term", disable=not progress):
        if t not in memo:
            memo[t] = coder.code(t)
    return memo
