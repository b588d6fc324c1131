"""A normal study answers the normal option (rule letters-v9).

"The chest X-ray appears to be normal, with no signs of pneumonia, pleural effusion or pneumothorax." among
"Left lower lobe pneumonia / Small right pleural effusion / Left apical pneumothorax / No acute cardiopulmonary
abnormality", and "The image shows a normal OCT scan of the macula." among "... / Normal macula / ...": a careful
reader takes the one option that says the study is normal, although the response never writes its words.

Only when no letter is stated and no other option is named and left standing (option_text.asserted_options), when
exactly one option is a normal option ("Normal ...", "No acute/significant abnormality", "Unremarkable ...",
"Within normal limits", "No <finding>" of two words or more; never "Normal pressure hydrocephalus" or a bare
"No"), and when the response calls the whole study normal: a study noun ("image", "X-ray", "scan", "fundus",
"ECG", "smear", "this", ...) that "is / appears (to be) / looks normal" or "unremarkable", "a normal <study>",
"no (acute/significant ...) abnormality/pathology/abnormal findings", "未见(明显)异常". A normal organ ("the
heart is normal") is not a normal study, and a qualified one ("normal except for ...", "but", "however",
"possible", "subtle") is not a commitment: those answer nothing.
"""
from __future__ import annotations

from typing import Sequence

import re2

from .option_text import asserted_options, folded_option, read_mentions

_STUDY = frozenset(("image", "images", "picture", "photo", "photograph", "photographs", "radiograph", "radiographs",
                    "ray", "rays", "xray", "film", "films", "scan", "scans", "ct", "mri", "study", "exam",
                    "examination", "ultrasound", "sonogram", "sonography", "fundus", "fundoscopy", "oct", "ecg", "ekg",
                    "electrocardiogram", "tracing", "mammogram", "smear", "slide", "specimen", "endoscopy",
                    "colonoscopy", "angiogram", "echocardiogram", "echo", "findings", "everything", "this", "it",
                    "imaging", "view", "views", "section", "biopsy"))
_VERBS = frozenset(("is", "are", "appears", "appear", "looks", "look", "seems", "seem", "was", "remains"))
_FILLERS = frozenset(("to", "be", "entirely", "completely", "essentially", "overall", "largely", "grossly", "totally",
                      "perfectly", "within", "a", "an", "otherwise"))
_NORMAL_WORDS = frozenset(("normal", "unremarkable"))
_ABNORMALITY = frozenset(("abnormality", "abnormalities", "pathology", "pathologies", "pathological", "abnormal"))
_NO_MODIFIERS = frozenset(("acute", "significant", "obvious", "evident", "visible", "apparent", "focal", "gross",
                           "definite", "detectable", "discernible", "cardiopulmonary", "intracranial", "radiographic",
                           "major", "clear", "identifiable", "any"))
_QUALIFIERS = frozenset(("except", "apart", "aside", "besides", "but", "however", "although", "though", "subtle",
                         "possible", "possibly", "may", "might", "could", "suspicious", "borderline", "mild", "mildly",
                         "slight", "slightly", "cannot", "unable", "unclear", "whether", "if"))
_NEGATIONS = frozenset(("not", "isnt", "doesnt", "arent", "never", "nor"))
_ARTICLES = frozenset(("a", "an", "entirely", "completely", "essentially", "otherwise", "totally"))
_PLANS = frozenset(("treatment", "intervention", "further", "follow", "management", "action", "imaging", "surgery",
                    "therapy", "need", "needed", "required"))
_PREPOSITIONS = frozenset(("on", "in", "of", "at", "for", "with", "from", "by"))
_CJK_NORMAL = ("未见异常", "未见明显异常", "无明显异常", "未见明显病变", "大致正常", "未见异常改变")
# "Normal pressure hydrocephalus", "Normal tension glaucoma": normal is part of a disease's name
# "with no signs of pneumonia, pleural effusion or pneumothorax": the whole list, to the sentence's end, is denied
_NEGATED_LIST = re2.compile(r"(?i)(?:^|[^a-z])(?:no|without|negative for)(?:[^a-z][^.;\n]*)?")
_NAMED_NORMAL = frozenset(("pressure", "tension", "anion", "saline", "flora", "sinus", "karyotype"))


def normal_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the one normal option when the response calls the whole study normal and names no other
    option (the module's docstring), else None."""
    low = source.lower()
    if "normal" not in low and "unremarkable" not in low and "no " not in low and "not show" not in low \
            and not any(p in source for p in _CJK_NORMAL):
        return None
    normal = [k for k, option in enumerate(options) if _is_normal_option(folded_option(option).split())]
    # the normal option's own nouns are studies too: "The optic disc appears normal." for "Normal optic disc"
    own = frozenset(w for w in folded_option(options[normal[0]]).split() if len(w) > 3) - _NORMAL_WORDS \
        if len(normal) == 1 else None
    if own is None:
        return None
    option_words = folded_option(options[normal[0]]).split()
    denied = tuple(option_words[1:]) if option_words[0] == "no" else ()  # "No fracture": "no acute fracture"
    if not _calls_study_normal(source, read_mentions(source, options)[0].text.split(), _STUDY | own, denied):
        return None
    if asserted_options(_NEGATED_LIST.sub(" ", source), options) - set(normal):
        return None  # another option named and standing: not the normal study alone
    return normal[0]


def _is_normal_option(words: list[str]) -> bool:
    if not words:
        return False
    if words[0] in _NORMAL_WORDS:
        return not _NAMED_NORMAL.intersection(words[1:2])
    if words[:3] == ["within", "normal", "limits"]:
        return True
    # "No acute abnormality", "No fracture", "No evidence of malignancy"; not "No" (a yes/no item) nor a plan
    return words[0] == "no" and len(words) >= 2 and not _PLANS.intersection(words)


def _calls_study_normal(source: str, words: list[str], studies: frozenset = _STUDY, denied: tuple = ()) -> bool:
    """Does the response (`words`: its folded words) call the whole study (one of `studies`) normal, unqualified?"""
    if any(p in source for p in _CJK_NORMAL):
        return not any(q in source for q in ("但", "除", "可能", "疑"))
    if _QUALIFIERS.intersection(words):
        return False
    for k, word in enumerate(words):
        if word in _NORMAL_WORDS:
            back = words[max(0, k - 6):k]
            if _NEGATIONS.intersection(back):
                continue  # "The image is not normal", "doesn't look normal"
            while back and back[-1] in _FILLERS:
                back.pop()
            if back and back[-1] in _VERBS and len(back) >= 2 and back[-2] in studies:
                return True  # "The chest X-ray appears to be normal", "The ECG is within normal limits"
            ahead = words[k + 1:k + 4]
            study = next((j for j, w in enumerate(ahead) if w in studies), None)
            if (k == 0 or words[k - 1] in _ARTICLES) and study is not None \
                    and not _PREPOSITIONS.intersection(ahead[:study]):
                return True  # "a normal OCT scan of the macula", "an unremarkable chest radiograph"
        # letters-v12: "does not show any signs of rib fracture" denies as "no" does
        if word == "no" or (word == "show" and k >= 1 and words[k - 1] in ("not", "doesnt")):
            rest = words[k + 1:k + 6]
            while rest and rest[0] in _NO_MODIFIERS:
                rest = rest[1:]
            if rest and (rest[0] in _ABNORMALITY or rest[:2] == ["abnormal", "findings"]):
                return True  # "no acute cardiopulmonary abnormality", "no significant pathology"
            if rest[:3] in (["evidence", "of"], ["signs", "of"], ["sign", "of"]) or rest[:2] in (["evidence", "of"], ["signs", "of"]):
                rest = rest[2:]
                while rest and rest[0] in _NO_MODIFIERS:
                    rest = rest[1:]
            if denied and (tuple(rest[:len(denied)]) == denied or tuple(rest[1:1 + len(denied)]) == denied):
                return True  # letters-v11: "No acute fracture is seen." for "No fracture"; v12: "no rib fracture"
    return False
