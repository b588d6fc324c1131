"""X-PCR value sets and the pure normalisers the builder (and the scorer) share.

Every alias table here comes from the spec (§2): Figure 1 / §4.2 stage names, the HF viewer's
category strings, modality spellings across the paper, README and viewer. Anything the paper leaves
open (the tier mapping when a release has no tier field, the disease -> category keywords) is this
project's documented choice and says so.
"""
from __future__ import annotations

import ast
import re
import string
from functools import lru_cache

STAGES = ("IQA", "AL", "LC", "DD", "SG", "CD")  # progressive order 1..6
STAGE_NAMES = {
    "IQA": "Image Quality Assessment", "AL": "Anatomical Localization", "LC": "Lesion Characterization",
    "DD": "Disease Diagnosis", "SG": "Severity Grading", "CD": "Clinical Decision-Making",
}
MODALITIES = ("CFP", "OCT", "FFA", "ICGA", "RetCam", "EP")  # Table 3's column order
TIERS = ("R", "A", "S")
TIER_NAMES = {"R": "Resident", "A": "Attending", "S": "Specialist"}
MODALITY_NAMES = {"CFP": "Colour fundus photography", "OCT": "Optical coherence tomography",
                  "FFA": "Fundus fluorescein angiography", "ICGA": "Indocyanine green angiography",
                  "RetCam": "RetCam imaging", "EP": "External eye photography"}
CATEGORY_NAMES = {"DR": "Diabetic retinopathy", "GLA": "Glaucoma", "CAT": "Cataract",
                  "AMD": "Age-related macular degeneration", "HTR": "Hypertensive retinopathy",
                  "PM": "Pathological myopia", "RVO": "Retinal vein occlusion", "Rare": "Rare diseases"}
TIER_WEIGHTS = {"R": 1.0, "A": 1.5, "S": 2.0}  # UAS weight per tier (this project's: the paper's importance weights are unreleased)
CATEGORIES = ("DR", "GLA", "CAT", "AMD", "HTR", "PM", "RVO", "Rare")
TASK_FAMILIES = ("Correspondence Identification", "Diagnostic Integration", "Modality Selection")
# Table 4's hospital case groups: group -> the modality set a case of that group holds.
CASE_GROUPS = {
    1: ("CFP", "OCT"),
    2: ("CFP", "OCT", "FFA"),
    3: ("CFP", "OCT", "FFA", "ICGA"),
    4: ("CFP", "OCT", "FFA", "EP"),
}
LETTERS = string.ascii_uppercase
ABLATION_SEP = "/without-"  # ablation item id: "<item id>/without-<MODALITY>"


@lru_cache(maxsize=4096)  # a release repeats a handful of category, modality and disease strings
def _key(text: str) -> str:
    """Casefold, '-'/'_' as spaces, single spaces: the form alias tables are keyed by."""
    return re.sub(r"\s+", " ", re.sub(r"[-_/]+", " ", text)).strip().casefold()


def _table(pairs: dict[str, tuple[str, ...]]) -> dict[str, str]:
    return {_key(alias): code for code, aliases in pairs.items() for alias in (code, *aliases)}


# "DR" is a stage alias here (Disease Recognition); as a disease category it means diabetic retinopathy.
_STAGE_ALIASES = _table({
    "IQA": ("Image Quality", "Image Quality Assessment", "Quality Assessment", "QA", "Quality", "Stage 1", "Stage 1 (IQA)"),
    "AL": ("Anatomical Localization", "Anatomical Localisation", "Anatomy Localization", "Localization", "Localisation",
           "Anatomy", "Stage 2", "Stage 2 (AL)"),
    "LC": ("Lesion Characterization", "Lesion Characterisation", "Pathological Features", "PF", "Lesion", "Lesions",
           "Stage 3", "Stage 3 (LC)"),
    "DD": ("Disease Diagnosis", "Disease Recognition", "DR", "Diagnosis", "Stage 4", "Stage 4 (DD)"),
    "SG": ("Severity Grading", "Severity", "Grading", "Stage 5", "Stage 5 (SG)"),
    "CD": ("Clinical Decision-Making", "Clinical Decision Making", "Clinical Decision", "Decision Making", "Management",
           "Stage 6", "Stage 6 (CD)"),
})
_MODALITY_ALIASES = _table({
    "CFP": ("Color Fundus Photography", "Colour Fundus Photography", "Fundus", "Fundus Photography"),
    "OCT": ("Optical Coherence Tomography",),
    "FFA": ("Fluorescein Angiography", "Fundus Fluorescein Angiography", "FA"),
    "ICGA": ("Indocyanine Green Angiography", "ICG"),
    "RetCam": ("Retcam", "RetCam Imaging"),
    "EP": ("External Photography", "Ext-Eye", "Ext Eye", "Exter Eye", "External Eye", "Ext-Eye (EP)"),
})
_TIER_ALIASES = _table({
    "R": ("Resident", "R-level", "R level", "Resident level", "Basic", "Easy"),
    "A": ("Attending", "A-level", "A level", "Attending level", "Intermediate", "Medium"),
    "S": ("Specialist", "S-level", "S level", "Specialist level", "Advanced", "Hard", "Expert"),
})
_CATEGORY_ALIASES = _table({
    "DR": ("Diabetic Retinopathy",),
    "GLA": ("Glaucoma",),
    "CAT": ("Cataract",),
    "AMD": ("Age-related Macular Degeneration", "Age related macular degeneration", "Macular Degeneration"),
    "HTR": ("Hypertensive Retinopathy",),
    "PM": ("Pathological Myopia", "Pathologic Myopia", "Myopia"),
    "RVO": ("Retinal Vein Occlusion",),
    "Rare": ("RARE", "Rare conditions", "Rare Ophthalmic Diseases", "Rare diseases", "Other"),
})
_TASK_FAMILY_ALIASES = _table({
    "Correspondence Identification": ("Correspondence", "CI"),
    "Diagnostic Integration": ("Integration", "DI"),
    "Modality Selection": ("Selection", "MS"),
})


def stage_code(value: str) -> str | None:
    return _STAGE_ALIASES.get(_key(value))


def modality_code(value: str) -> str | None:
    return _MODALITY_ALIASES.get(_key(value))


def tier_code(value: str) -> str | None:
    return _TIER_ALIASES.get(_key(value))


def category_code(value: str) -> str | None:
    return _CATEGORY_ALIASES.get(_key(value))


def task_family_code(value: str) -> str | None:
    return _TASK_FAMILY_ALIASES.get(_key(value))


def case_group_of(modalities: set[str]) -> int | None:
    return next((g for g, mods in CASE_GROUPS.items() if set(mods) == modalities), None)


# ---- expertise tier when the release has no tier field (this project's mapping, see the card) ----
# Stage default = the majority tier of that stage in Figure 2(f) (IQA 70% R, AL 60% R, LC 45% R,
# DD 50% A, SG 45% A; CD 40/40 A/S -> S, "decision-making" being the README's Specialist wording).
STAGE_DEFAULT_TIER = {"IQA": "R", "AL": "R", "LC": "R", "DD": "A", "SG": "A", "CD": "S"}
# Sub-label keywords move an item off its stage default; checked S first, then A, then R.
SUBLABEL_TIER_KEYWORDS = (
    ("S", ("differential", "subtype", "etiolog", "aetiolog", "prognos", "surg", "referral")),
    ("A", ("artifact", "artefact", "gradab", "distribution", "pattern", "morpholog", "severity", "grade", "staging")),
    ("R", ("clarity", "focus", "illumination", "exposure", "laterality", "presence", "visib")),
)


def default_tier(stage: str | None, sub_label: str | None) -> str:
    label = (sub_label or "").casefold()
    for tier, words in SUBLABEL_TIER_KEYWORDS:
        if any(w in label for w in words):
            return tier
    return STAGE_DEFAULT_TIER.get(stage or "", "A")


# ---- disease -> category when the release gives no category (this project's keyword map) ----
DISEASE_CATEGORY_KEYWORDS = (
    ("DR", ("diabetic", "npdr", "pdr", "dme", "diabetic macular")),
    ("RVO", ("vein occlusion", "rvo", "brvo", "crvo")),
    ("HTR", ("hypertensive",)),
    ("GLA", ("glaucom", "cupping")),
    ("CAT", ("cataract",)),
    ("AMD", ("macular degeneration", "amd", "drusen", "geographic atrophy", "cnv", "choroidal neovascular")),
    ("PM", ("myopi",)),
)
NO_DISEASE = ("normal", "healthy", "no disease", "no abnormality", "no lesion", "none")
NON_DIAGNOSES = {"yes", "no", "uncertain", "unknown", "true", "false", "cannot determine", "not sure"}


@lru_cache(maxsize=4096)
def category_for_disease(disease: str | None) -> str | None:
    """The 8-way category of a disease name; None for 'normal' (no category); 'Rare' when no keyword fits."""
    if not disease:
        return None
    text = disease.casefold()
    if any(text.startswith(w) for w in NO_DISEASE):
        return None
    for code, words in DISEASE_CATEGORY_KEYWORDS:
        if any(re.search(rf"(?<![a-z]){re.escape(w)}", text) for w in words):
            return code
    return "Rare"


# ---- options and answers ----
_OPTIONS_LIST = re.compile(r"\n?\s*Options?\s*:\s*(\[.*\])\s*$", re.S | re.I)
_LETTERED = re.compile(r"^\s*\(?([A-Z])[.):]\s+(.+?)\s*$")


class OptionError(ValueError):
    """The question text or answer cannot be turned into options + a letter; the message says why."""


_QUOTED = "'[^'\\\\\\n]*'|\"[^\"\\\\\\n]*\""  # a quoted string without backslash or newline
_PLAIN_LIST = re.compile(f"\\[\\s*(?:{_QUOTED})(?:\\s*,\\s*(?:{_QUOTED}))*\\s*,?\\s*\\]")
_PLAIN_ITEM = re.compile(_QUOTED)


def _plain_string_list(text: str) -> list[str] | None:
    """The values of a list of quoted strings without backslashes (['a', "b's"]): what ast.literal_eval
    returns for it, at regex speed. None for anything else (escapes, numbers, adjacent literals, string
    prefixes...), which goes to ast.literal_eval."""
    if not _PLAIN_LIST.fullmatch(text):
        return None
    return [m.group(0)[1:-1] for m in _PLAIN_ITEM.finditer(text)]


def split_options(question: str) -> tuple[str, list[str]] | None:
    """(stem, options) from a question with options appended: "...\\nOptions: ['a', 'b']" (the HF
    viewer's form) or lettered lines "A. a" / "(B) b" / "C) c"; None when the text holds no options."""
    match = _OPTIONS_LIST.search(question)
    if match:
        plain = _plain_string_list(match.group(1))
        if plain is not None:
            return question[: match.start()].rstrip(), [v.strip() for v in plain]
        try:
            values = ast.literal_eval(match.group(1))
        except (ValueError, SyntaxError, MemoryError, RecursionError):
            raise OptionError("the 'Options:' list after the question is not a valid list literal") from None
        if not isinstance(values, (list, tuple)) or not all(isinstance(v, (str, int, float)) for v in values):
            raise OptionError("the 'Options:' list must hold strings")
        return question[: match.start()].rstrip(), [str(v).strip() for v in values]
    lines = question.splitlines()
    options: list[str] = []
    first = None
    for index, line in enumerate(lines):
        m = _LETTERED.match(line)
        if m and m.group(1) == LETTERS[len(options)]:
            first = index if first is None else first
            options.append(m.group(2))
        elif options:
            break
    if len(options) >= 2 and first is not None:
        return "\n".join(lines[:first]).rstrip(), options
    return None


@lru_cache(maxsize=65536)  # option texts repeat across items (an answer is matched against each of them)
def normalise_text(value: str) -> str:
    text = re.sub(r"\s+", " ", str(value)).strip().strip("'\"").strip()
    return text.rstrip(".").strip().casefold()


_ANSWER_LETTER = re.compile(r"^\(?([A-Z])\)?\.?$|^option\s+([A-Z])$", re.I)


def answer_letter(answer: str, options: list[str]) -> str:
    """The option letter of an answer given as option text (the release's form) or as a letter."""
    wanted = normalise_text(answer)
    hits = [i for i, option in enumerate(options) if normalise_text(option) == wanted]
    if len(hits) == 1:
        return LETTERS[hits[0]]
    if len(hits) > 1:
        raise OptionError(f"answer text matches {len(hits)} identical options ({', '.join(LETTERS[i] for i in hits)})")
    m = _ANSWER_LETTER.match(str(answer).strip())
    if m:
        letter = (m.group(1) or m.group(2)).upper()
        if letter in LETTERS[: len(options)]:
            return letter
    shown = str(answer) if len(str(answer)) <= 60 else str(answer)[:57] + "..."
    raise OptionError(f"answer text {shown!r} matches none of the {len(options)} options")


def source_dataset(image_path: str | None) -> str | None:
    """'CFP/12 ODIR-5K/img.jpg' -> 'ODIR-5K': the folder after the modality folder, its numeric prefix dropped."""
    if not image_path:
        return None
    parts = [p for p in re.split(r"[\\/]+", image_path) if p and p != "."]
    if parts and parts[0].casefold() == "images":
        parts = parts[1:]
    if parts and modality_code(parts[0]):
        parts = parts[1:]
    if len(parts) < 2:  # only a file name left
        return None
    name = re.sub(r"^\d+[\s_.-]*", "", parts[0]).strip()
    return name or parts[0]
