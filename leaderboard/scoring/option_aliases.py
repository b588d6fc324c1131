"""Other names of an option (rule letters-v4, step 4, second tier): the abbreviations and part-names a
response may use instead of an option's full text, each kept only when it names one option unambiguously.

- Initialisms written in capitals: "ARDS" for "Acute respiratory distress syndrome", "VSD", "TOF" (with or
  without "of"), "AMD" (a hyphenated compound as one word or several), and a short table of common ones that
  are not plain initialisms ("ICH", "GBM", "CSCR"), each counted where its expansion is the option's text or
  a whole-word part of it.
- Genus abbreviations: "E. coli" for "Escherichia coli", "S. aureus" (the capital and its full stop are
  checked in the response); "Staph aureus", "Strep pneumoniae", "Hep C" likewise.
- Part-names: a run of an option's words found in no other option that holds a word no other option holds
  ("type A" for "Stanford type A dissection", "Grade C", "vitamin D", "CNS lymphoma", "macular
  degeneration"), never opening with a one-letter word ("a dissection") or a linking word; a single word
  only when it holds a digit ("T2" for "T2-weighted"), the rest of the option is a generic tail
  ("Glioblastoma" for "Glioblastoma multiforme"), or it is the one word telling the option apart from the
  others ("Appendicitis" among "Acute appendicitis", "Acute cholecystitis", ...; not a generic word such as
  "left" or "acute"). A head noun alone ("Lymphoma" for "Primary CNS lymphoma", "Dermatitis" for "Atopic
  dermatitis") names a category, not the option.

An alias shared by two options (or equal to a part of another option's text) names neither. The caller
(`option_text.named_option`) reads aliases only when the full option texts named nothing.
"""
from __future__ import annotations

import functools
import unicodedata
from typing import NamedTuple, Sequence

import re2

from .option_synonyms import INITIALISMS as SYNONYM_INITIALISMS, fold_cjk, synonyms
from .option_variants import CAPITALS as VARIANT_CAPITALS, variants

_LINKING = {"of", "the", "a", "an", "and", "or", "with", "without", "in", "on", "to", "for", "at", "by", "from"}
_GENERIC_WORDS = {"left", "right", "upper", "lower", "acute", "chronic", "mild", "moderate", "severe", "normal",
                  "primary", "secondary", "benign", "malignant", "bilateral", "unilateral", "central", "peripheral",
                  "anterior", "posterior", "medial", "lateral", "proximal", "distal", "early", "late", "small",
                  "large", "simple", "complex", "partial", "complete", "total", "focal", "diffuse", "multiple",
                  "single", "stage", "grade", "type", "class", "none", "other", "both", "neither",
                  "cell", "cells"}  # letters-v13: "cell tumor" of "Leydig cell tumor" is in "germ cell tumor" too
_MAX_PART_WORDS = 6
SIDES = {"left": ("左侧", "左"), "right": ("右侧", "右"), "bilateral": ("双侧", "两侧"), "both": ("双侧", "两侧")}
_PLACE_PREPOSITIONS = {"of", "in", "at", "on"}
_PLACE_WORDS = {"lobe", "lobes", "segment", "quadrant", "side", "zone", "region", "field", "wall", "base", "apex", "pole",
                "cord", "head", "neck", "vein", "veins", "artery", "arteries", "duct", "ducts", "chamber"}  # letters-v11: a place of two words or more names no option ("spinal cord" of "Spinal cord tumor")
_SKIPPED_IN_INITIALISMS = {"of", "the", "and", "or", "with", "without", "in", "on", "to", "for"}
_GENERIC_TAIL = {"multiforme", "weighted", "image", "images", "imaging", "sequence", "deficiency", "disease",
                 "syndrome", "type", "pattern"}
# initialisms that read as ordinary words or name a modality, never an option
_NOT_INITIALISMS = {"ct", "mr", "us", "ap", "pa", "iv", "or", "no", "is", "it", "an", "as", "at", "be", "by", "do",
                    "go", "he", "if", "in", "me", "my", "of", "on", "so", "to", "up", "we", "ok", "am", "pm"}
# common abbreviations that are not the initials of their expansion (folded expansion -> abbreviations)
_TABLE = {
    "intracerebral hemorrhage": ("ich",), "intracranial hemorrhage": ("ich",), "glioblastoma": ("gbm",),
    "glioblastoma multiforme": ("gbm",), "central serous chorioretinopathy": ("cscr", "csr"),
    # letters-v12: retinal lesions and treatments by the abbreviations ophthalmologists write
    "panretinal photocoagulation": ("prp",), "pan retinal photocoagulation": ("prp",), "neovascularization elsewhere": ("nve",),
    "neovascularization of the disc": ("nvd",), "neovascularization at the disc": ("nvd",), "geographic atrophy": ("ga",),
    "polypoidal choroidal vasculopathy": ("pcv",),
    # letters-v13
    "pneumocystis jirovecii pneumonia": ("pcp", "pjp"), "pneumocystis pneumonia": ("pcp", "pjp"),
    "pneumocystis carinii pneumonia": ("pcp",), "gastrointestinal stromal tumor": ("gist",),
    "developmental dysplasia of the hip": ("ddh",), "avascular necrosis": ("avn",),
    "acute respiratory distress syndrome": ("ards",),
    # letters-v12: ankle ligaments by the abbreviations radiologists write (talo-fibular: ATFL, not "ATL")
    "anterior talofibular ligament": ("atfl",), "posterior talofibular ligament": ("ptfl",),
    "calcaneofibular ligament": ("cfl",), "anterior inferior tibiofibular ligament": ("aitfl",),
    "pneumocystis pneumonia": ("pcp", "pjp"), "neuromyelitis optica": ("nmo", "nmosd"),
    "age related macular degeneration": ("amd", "armd"), "diabetic macular edema": ("dme",),
    "chronic obstructive pulmonary disease": ("copd",), "tuberculosis": ("tb",),
    "hepatocellular carcinoma": ("hcc",), "renal cell carcinoma": ("rcc",),
    "diffuse large b cell lymphoma": ("dlbcl",), "atrial fibrillation": ("af", "afib"), "angiomyolipoma": ("aml",), "osteoarthritis": ("oa",),
    "psoriatic arthritis": ("psa",), "rheumatoid arthritis": ("ra",), "atrial flutter": ("afl",), "primary cns lymphoma": ("pcnsl",),
    "primary central nervous system lymphoma": ("pcnsl",), "central nervous system lymphoma": ("cnsl",), "acute disseminated encephalomyelitis": ("adem",),
    "idiopathic pulmonary fibrosis": ("ipf",), "usual interstitial pneumonia": ("uip",),
    "nonspecific interstitial pneumonia": ("nsip",), "non specific interstitial pneumonia": ("nsip",),
    "diffusion weighted": ("dwi",), "diffusion weighted imaging": ("dwi",), "fluid attenuated inversion recovery": ("flair",),
    "transient ischemic attack": ("tia",), "deep vein thrombosis": ("dvt",), "congestive heart failure": ("chf",),
    "atrial septal defect": ("asd",), "patent ductus arteriosus": ("pda",), "systemic lupus erythematosus": ("sle",),
    "subarachnoid hemorrhage": ("sah",), "subarachnoid haemorrhage": ("sah",), "subdural hematoma": ("sdh",),
    "subdural haematoma": ("sdh",), "epidural hematoma": ("edh",), "epidural haematoma": ("edh",),
    "extradural hematoma": ("edh",), "squamous cell carcinoma": ("scc",), "basal cell carcinoma": ("bcc",), "ductal carcinoma in situ": ("dcis",),
    # letters-v9: drugs and treatments by the abbreviation clinicians write ("Give NAC.")
    "n acetylcysteine": ("nac",), "acetylcysteine": ("nac",), "alteplase": ("tpa", "rtpa"),
    "tissue plasminogen activator": ("tpa",), "methotrexate": ("mtx",), "intravenous immunoglobulin": ("ivig",),
    "proton pump inhibitor": ("ppi",), "low molecular weight heparin": ("lmwh",), "unfractionated heparin": ("ufh",),
    "hydroxychloroquine": ("hcq",), "isoniazid": ("inh",), "trimethoprim sulfamethoxazole": ("tmp smx",),
    "all trans retinoic acid": ("atra",), "fresh frozen plasma": ("ffp",), "packed red blood cells": ("prbc",),
    "electroconvulsive therapy": ("ect",), "cognitive behavioral therapy": ("cbt",), "5 fluorouracil": ("5 fu",),
    "selective serotonin reuptake inhibitor": ("ssri",), "tricyclic antidepressant": ("tca",),
    "nonsteroidal anti inflammatory drug": ("nsaid",), "non steroidal anti inflammatory drug": ("nsaid",),
    "continuous positive airway pressure": ("cpap",), "percutaneous coronary intervention": ("pci",),
    "coronary artery bypass grafting": ("cabg",), "endoscopic retrograde cholangiopancreatography": ("ercp",),
    # letters-v10: cardiomyopathies by the initials of their parts ("cardio-myopathy")
    "hypertrophic obstructive cardiomyopathy": ("hocm",), "hypertrophic cardiomyopathy": ("hcm",),
    "dilated cardiomyopathy": ("dcm",), "restrictive cardiomyopathy": ("rcm",),
    "arrhythmogenic right ventricular cardiomyopathy": ("arvc",),
}
_SHORT_WORDS = {"staphylococcus": "staph", "streptococcus": "strep", "hepatitis": "hep", "metastasis": "mets",
               "metastases": "mets", "adenocarcinoma": "carcinoma"}  # v13: "colorectal carcinoma" (no other carcinoma)


class Alias(NamedTuple):
    needle: str  # folded, " word ... word "
    capitals: bool  # the response must write it in capitals (an initialism)
    genus: bool  # the response must write its first word as a capital followed by "." ("E. coli")
    listed: bool = False  # from _TABLE: beats the same letters as another option's bare initials ("AF")


def _initialisms(words: list[str], option: str) -> frozenset[str]:
    """`_initialisms_of` (aliases and shared_initialisms both read them: each option's are worked out once)."""
    return _initialisms_of(tuple(words), option)


@functools.lru_cache(maxsize=4096)
def _initialisms_of(words: tuple, option: str) -> frozenset[str]:
    """First letters of the option's words: every word, then without linking words; hyphenated compounds
    ("Age-related") also as one word."""
    out = set()
    compounds = [w for w in option.replace("-", "").replace("–", "").split()]
    for seq in (words, [w for w in words if w not in _SKIPPED_IN_INITIALISMS]):
        if len(seq) >= 2 and all(w[:1].isalpha() for w in seq):
            out.add("".join(w[0] for w in seq))
    lowered = [w.casefold() for w in compounds if w[:1].isalpha()]
    if len(lowered) >= 2 and len(lowered) == len(compounds):
        out.add("".join(w[0] for w in lowered))
        out.add("".join(w[0] for w in lowered if w not in _SKIPPED_IN_INITIALISMS))
    tokens = "".join(c if c.isalnum() else " " for c in option).split()
    if len(tokens) == len(words) and any(t.isupper() and 2 <= len(t) <= 4 for t in tokens):
        # letters-v7: a word written in capitals gives all its letters ("AVNRT" for "AV nodal reentrant tachycardia")
        out.add("".join(t.lower() if t.isupper() and 2 <= len(t) <= 4 else t[0].lower()
                        for t, w in zip(tokens, words) if w not in _SKIPPED_IN_INITIALISMS))
    content = [w for w in words if w not in _SKIPPED_IN_INITIALISMS]
    for i in range(len(content)):  # letters-v5: a run of three or more words ("ACL" for "Anterior cruciate ligament tear")
        for j in range(i + 3, min(len(content), i + _MAX_PART_WORDS) + 1):
            if all(w[:1].isalpha() for w in content[i:j]):
                out.add("".join(w[0] for w in content[i:j]))
    return frozenset(i for i in out if len(i) >= 2 and i not in _NOT_INITIALISMS)


def _contains(haystack: str, needle: str) -> bool:
    """Is `needle` (" w ... w ") a whole-word run of `haystack` (" w ... w ")?"""
    return needle in haystack


_PLACES = {"cerebral", "brain", "intracranial", "pulmonary", "lung", "renal", "kidney", "hepatic", "liver", "splenic",
           "spleen", "pancreatic", "cardiac", "myocardial", "colonic", "gastric", "esophageal", "orbital", "spinal",
           "cutaneous", "skin", "breast", "thyroid", "adrenal", "ovarian", "testicular", "prostatic", "bladder", "bone",
           "muscle", "retinal", "corneal", "intestinal", "bowel",
           "optic", "disc", "disk", "macula", "fovea", "pericardium", "femoral"}  # letters-v12: "the optic disc" says where
_POLARITY = frozenset(("normal", "no", "non", "not", "without", "absent", "negative", "abnormal"))
_ROMAN = {"ii", "iii", "iv", "vi", "vii"}  # letters-v7: "Mobitz II" tells "Mobitz II ..." from "Mobitz I ..."
_LEVEL = re2.compile(r"^[ctls][1-9][0-2]?$")  # a vertebral level: C2, T12, L4, S1 (letters-v11)


def _parts(index: int, words: list[str], others: list[list[str]]) -> set[str]:
    other_words = {w for ws in others for w in ws}
    other_texts = [" " + " ".join(ws) + " " for ws in others]
    out = set()
    n = len(words)
    polarity = _POLARITY.intersection(words)  # letters-v9: "cardiac silhouette" without "Normal" says the opposite
    for i in range(n):
        for j in range(i + 1, min(n, i + _MAX_PART_WORDS) + 1):  # bounded: a long sentence-like option stays cheap
            part = words[i:j]
            if polarity and polarity.isdisjoint(part):
                continue
            if j - i == n or part[0] in _LINKING or len(part[0]) == 1 \
                    or (part[-1] in _LINKING and not (part[-1] == "a" and len(part) > 1 and part[-2] not in _LINKING)):
                continue  # the whole text is tier one; "a dissection", "of Fallot" are no names
            if (any(w in _PLACE_PREPOSITIONS for w in words[:i]) or len(part) >= 2) and all(
                    w in _GENERIC_WORDS or w in _PLACES or w in _PLACE_WORDS or _LEVEL.match(w) for w in part):
                continue  # letters-v8: "upper lobe" of "Hamartoma of the upper lobe" says where, not what
                # (letters-v11: nor "C2" of "Teardrop fracture of C2": a vertebral level)
            if len(part) == 1 and i == 0 < n - 1 and part[0] in _PLACES:
                continue  # letters-v13: "the liver" of "Liver laceration" says where ("a CT showing the liver, kidneys
                # and spleen"); "Liver." alone is still its closing label (lead_words)
            distinctive = [w for w in part if w not in other_words]
            if not distinctive or all(w in _GENERIC_WORDS for w in distinctive):
                continue
            if len(part) == 1:
                word = part[0]
                has_digit = any(c.isdigit() for c in word) and any(c.isalpha() for c in word)
                generic_rest = i == 0 and all(w in _GENERIC_TAIL for w in words[1:]) and len(word) >= 4
                # the one word telling the option apart: "appendicitis" when others are "Acute ..." too
                core = len(word) >= 5 and word not in _GENERIC_WORDS and all(
                    w in other_words for k, w in enumerate(words) if k != i)
                # letters-v7: the head noun of an option whose other words only say where ("abscess" of "Cerebral
                # abscess"): the image shows the place
                placed = i == n - 1 and n >= 2 and len(word) >= 5 and all(w in _PLACES for w in words[:-1])
                # not the head noun alone: "Dermatitis" names a category, not "Atopic dermatitis"
                if not (has_digit or generic_rest or core or placed):
                    continue
            elif not any(len(w) >= 4 or len(w) == 1 or any(c.isdigit() for c in w) or w in _ROMAN for w in distinctive):
                continue
            needle = " " + " ".join(part) + " "
            if any(_contains(t, needle) for t in other_texts):
                continue
            out.add(needle)
    return out


def aliases(folded_options: Sequence[str], options: Sequence[str]) -> list[list[Alias]]:
    """Per option, its aliases that no other option shares. `folded_options` are the options' folded texts."""
    return _aliases(tuple(folded_options), tuple(o or "" for o in options))


@functools.lru_cache(maxsize=4096)
def _aliases(folded_options: tuple, options: tuple) -> list[list[Alias]]:
    words = [f.split() for f in folded_options]
    found: list[list[Alias]] = []
    for index, option in enumerate(options):
        ws = words[index]
        mine: set[Alias] = set()
        if not ws:
            found.append([])
            continue
        others = [w for k, w in enumerate(words) if k != index and w]
        for initialism in _initialisms(ws, option or ""):
            mine.add(Alias(" " + initialism + " ", True, False))
        text = " ".join(ws)
        other_names = synonyms(text)
        for name in (text, *other_names):  # letters-v11: also an other name's ("导管原位癌" is DCIS)
            for expansion, abbreviations in _TABLE.items():
                if _contains(" " + name + " ", " " + expansion + " "):
                    mine.update(Alias(" " + a + " ", True, False, True) for a in abbreviations if a != text)
        for name in other_names:  # letters-v6: other names of the same condition (option_synonyms.py)
            mine.add(Alias(" " + name + " ", name in SYNONYM_INITIALISMS, False, True))
        for name in variants(ws, words):  # letters-v11: "category 4", "T3 N2 M0", "non-contrast head CT"
            mine.add(Alias(" " + name + " ", name in VARIANT_CAPITALS, False))
        if len(ws) == 2 and len(ws[0]) >= 4 and ws[0].isalpha() and (option or "").strip()[:1].isupper():
            mine.add(Alias(" " + ws[0][0] + " " + " ".join(ws[1:]) + " ", False, True))  # "e coli"
        for long, short in _SHORT_WORDS.items():
            if long in ws and not any(short in o for o in others):  # v13: no other carcinoma among the options
                mine.add(Alias(" " + " ".join(short if w == long else w for w in ws) + " ", False, False))
        mine.update(Alias(p, False, False) for p in _parts(index, ws, others))
        mine.update(Alias(" " + g + " ", False, False) for g in _glosses(option or ""))
        found.append(sorted(mine))
    counts: dict[str, int] = {}
    listed: dict[str, int] = {}
    for per_option in found:
        for needle in {a.needle for a in per_option}:
            counts[needle] = counts.get(needle, 0) + 1
        for needle in {a.needle for a in per_option if a.listed}:
            listed[needle] = listed.get(needle, 0) + 1
    # a listed abbreviation of one option wins over the same letters as other options' initials ("AF": fibrillation)
    found = [[a for a in per_option if a.listed or listed.get(a.needle, 0) == 0] for per_option in found]
    counts = {needle: (1 if listed.get(needle) == 1 else n) for needle, n in counts.items()}
    full = [" " + " ".join(ws) + " " for ws in words]
    return [[a for a in per_option if counts[a.needle] == 1 and a.needle not in full
             and not any(_contains(full[k], a.needle) for k in range(len(full)) if k != index)]
            for index, per_option in enumerate(found)]


# head nouns too general to stand for one option's category ("tumor", "lesion" describe the image)
_VAGUE_HEADS = {"tumor", "tumour", "tumors", "disease", "lesion", "lesions", "mass", "masses", "syndrome", "change",
                "changes", "injury", "infection", "process", "finding", "findings", "pattern", "abnormality",
                "disorder", "condition", "anomaly", "variant", "nodule", "nodules", "cyst", "opacity", "sign",
                "image", "imaging", "study", "scan", "view", "sequence", "weighted", "deficiency", "type", "grade",
                "stage", "fracture", "defect", "malformation", "degeneration", "edema", "oedema", "hemorrhage",
                "haemorrhage", "thickening", "enlargement", "dilatation", "dilation", "stenosis", "occlusion"}


@functools.lru_cache(maxsize=4096)
def head_nouns(folded_options: tuple) -> list[str | None]:
    """Per option, its last word when the option has several words and that word names a category no other
    option's words hold ("pneumonia" of "Lobar pneumonia"): not a name of the option (another pneumonia may
    be meant), but a mention of it coordinated with another option ("pleural effusion and pneumonia") keeps the
    response from committing (letters-v5)."""
    words = [f.split() for f in folded_options]
    out: list[str | None] = []
    for index, ws in enumerate(words):
        head = ws[-1] if len(ws) >= 2 else None
        if head is None or len(head) < 5 or not head.isalpha() or head in _VAGUE_HEADS or head in _GENERIC_WORDS \
                or any(head in other for k, other in enumerate(words) if k != index):
            out.append(None)
            continue
        out.append(" " + head + " ")
    return out


@functools.lru_cache(maxsize=4096)
def _glosses(option: str) -> list[str]:
    """letters-v12: the words an option glosses itself with in brackets, "moderate" of "Grade 3 (moderate)", "hsil" of
    "宫颈高级别鳞状上皮内病变（HSIL）" (at most three words, one of four letters or more), and the option without its
    bracket, "预激综合征" of "预激综合征（WPW）" (folded as responses are: CJK one character a word)."""
    option = unicodedata.normalize("NFKC", option)
    out = []
    start = option.find("(")
    while 0 <= start < len(option):
        end = option.find(")", start)
        if end < 0:
            break
        words = fold_cjk(option[start + 1:end]).split()
        if 1 <= len(words) <= 3 and any(w.isalpha() and len(w) >= 4 for w in words):
            out.append(" ".join(words))
        outside = fold_cjk(option[:start] + " " + option[end + 1:])
        if len(outside.replace(" ", "")) >= 3:
            out.append(outside)
        start = option.find("(", end)
    return out


def lead_words(folded_options: tuple) -> list[str | None]:
    """Per option, its first word when the option has several words and no other option holds that word, and it
    is no generic or linking word and has five letters or more ("tinea" of "Tinea corporis", "tetralogy" of
    "Tetralogy of Fallot"). It names the option only as a response's closing label ("Tinea.", "Boot-shaped
    heart: tetralogy."), never inside a sentence, where such a word may be a modifier ("brain" of "Brain
    abscess" in "a lesion in the brain") (letters-v5)."""
    words = [f.split() for f in folded_options]
    out: list[str | None] = []
    for index, ws in enumerate(words):
        lead = ws[0] if len(ws) >= 2 else None
        side = lead in SIDES  # letters-v12: "left" of "Left breast" among Right breast / Both breasts: "left" answers
        if lead is None or (not side and (len(lead) < 5 or not lead.isalpha() or lead in _GENERIC_WORDS or lead in _LINKING)) \
                or any(lead in other for k, other in enumerate(words) if k != index):
            out.append(None)
            continue
        out.append(lead)
    return out


@functools.lru_cache(maxsize=4096)
def shared_initialisms(folded_options: tuple, options: tuple) -> dict[str, tuple[tuple[int, frozenset], ...]]:
    """letters-v7: initialisms that two or more options share ("PE": pulmonary embolism, pericardial effusion), each
    with its holders and the words telling each holder apart (five letters or more, in no other holder's text). A
    response writing the initialism in capitals names the one holder whose telling words it also uses ("PE ...
    filling defect in the pulmonary arteries")."""
    words = [f.split() for f in folded_options]
    holders: dict[str, list[int]] = {}
    for index, ws in enumerate(words):
        if ws:
            for initialism in _initialisms(ws, options[index] or ""):
                holders.setdefault(" " + initialism + " ", []).append(index)
    out = {}
    for needle, indices in holders.items():
        if len(indices) < 2:
            continue
        telling = []
        for k in indices:
            others = {w for j in indices if j != k for w in words[j]}
            telling.append((k, frozenset(w for w in words[k] if len(w) >= 5 and w not in others
                                         and w not in _GENERIC_WORDS and w not in _VAGUE_HEADS)))
        out[needle] = tuple(telling)
    return out
