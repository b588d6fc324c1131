"""One identity per model across every board: the registry in models.json (canonical id, display name, the
aliases seen in the papers, HF repo, organisation, size, access, domain, reasoning, release month).

A name resolves when it matches a display name or an alias after folding case and dropping everything but
letters and digits ("Medgemma-27B" = "MedGemma 27B"; "Gemma3-27B" = "Gemma-3-27B"). A name that does not
resolve is never guessed onto a model: it keeps its own row, marked as not in the registry, and is listed for
review (`unknown_names`). Paper rows from a judge study ("X (judged by Y)") are model X.
"""
from __future__ import annotations

import json
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path

from ..scoring.result import ModelInfo, Result

DATA = Path(__file__).with_name("models.json")
NOT_MODELS = ("human", "pooled")  # physician groups and pooled paper figures: rows, not models
UNLISTED = "unlisted:"  # id prefix of a name the registry does not know
JUDGED_BY = " (judged by "


@dataclass(frozen=True)
class Model:
    id: str
    name: str
    aliases: tuple[str, ...] = ()
    hf_repo: str | None = None
    organisation: str | None = None
    params_b: float | None = None
    access: str | None = None
    domain: str | None = None
    reasoning: bool | None = None
    input_modality: str | None = "multimodal"
    released: str | None = None  # "YYYY-MM"
    known: bool = True  # False: a name outside the registry (its own row until reviewed)


def key(name: str) -> str:
    """Case, spaces and punctuation folded away (a linear scan: names are untrusted text)."""
    return "".join(ch for ch in name.casefold() if ch.isalnum())


@lru_cache(maxsize=1)
def _load() -> tuple[dict[str, Model], dict[str, str]]:
    data = json.loads(DATA.read_text(encoding="utf-8"))
    models, index = {}, {}
    for raw in data["models"]:
        model = Model(**{**raw, "aliases": tuple(raw.get("aliases") or ())})
        if model.id in models:
            raise ValueError(f"models.json: id {model.id!r} is listed twice")
        models[model.id] = model
        for spelling in (model.id, model.name, *model.aliases):
            folded = key(spelling)
            if index.get(folded, model.id) != model.id:
                raise ValueError(f"models.json: {spelling!r} names both {index[folded]} and {model.id}")
            index[folded] = model.id
    return models, index


def all_models() -> list[Model]:
    return list(_load()[0].values())


def get(model_id: str) -> Model | None:
    return _load()[0].get(model_id)


def resolve(name: str, paper: bool = False) -> Model | None:
    """The registry's model for `name`, or None. `paper`: a paper row, whose judge-study rows resolve to the
    judged model (a submission's name is taken as written)."""
    return _resolve(name or "", paper)


@lru_cache(maxsize=8192)  # a board of 50,000 rows names a few hundred models: fold each name once
def _resolve(name: str, paper: bool) -> Model | None:
    models, index = _load()
    found = index.get(key(name or ""))
    if found is None and paper and JUDGED_BY in (name or ""):
        found = index.get(key(name.split(JUDGED_BY, 1)[0]))
    return models.get(found) if found else None


def identity(result: Result) -> Model:
    """The model a result belongs to: the registry's entry, or an unlisted one keyed by its exact name."""
    found = resolve(result.model.name, paper=result.source != "submission")
    if found is not None:
        return found
    info = result.model
    name = (info.name or "").strip()
    return Model(id=UNLISTED + name, name=name, organisation=info.organisation, params_b=info.params_b,
                 access=info.access, domain=info.domain, reasoning=info.reasoning,
                 input_modality=info.input_modality, known=False)


def canonical_info(info: ModelInfo, source: str = "paper") -> ModelInfo:
    """The record's model as every board shows it: the registry's name and facts, the record's own values only
    where the registry has none (a name outside the registry stays exactly as submitted)."""
    if source in NOT_MODELS and resolve(info.name) is None:
        return info
    model = resolve(info.name, paper=source != "submission")
    if model is None:
        return info
    qualifier = JUDGED_BY + info.name.split(JUDGED_BY, 1)[1] if JUDGED_BY in info.name else ""
    return replace(info, name=model.name + qualifier,
                   organisation=model.organisation or info.organisation, access=model.access or info.access,
                   domain=model.domain or info.domain,
                   reasoning=model.reasoning if model.reasoning is not None else info.reasoning,
                   input_modality=info.input_modality or model.input_modality,
                   params_b=model.params_b if model.params_b is not None else info.params_b,
                   link=info.link or (f"https://huggingface.co/{model.hf_repo}" if model.hf_repo else None))


def is_model_row(result: Result) -> bool:
    return result.source not in NOT_MODELS


def unknown_names(results) -> list[tuple[str, str]]:
    """(name, benchmark) of model rows whose name is not in the registry, each once: the review list."""
    seen: dict[tuple[str, str], None] = {}
    for r in results:
        if is_model_row(r) and resolve(r.model.name, paper=r.source != "submission") is None:
            seen[(r.model.name, r.benchmark)] = None
    return list(seen)


def choices() -> list[tuple[str, str]]:
    """(label, name) pairs for a model picker, by display name."""
    return sorted(((m.name, m.name) for m in all_models()), key=lambda pair: pair[0].casefold())
