"""Other ways of writing an option's own text (rule letters-v11, step 4, second tier): the same words in the order
and shorthand clinicians write them, each kept (by option_aliases) only when it names one option alone.

- A numbered member of a family the options share ("BI-RADS 4", "Kellgren-Lawrence grade 3", "Stage IIIA") is also
  "category 4", "grade 3", "stage iiia", "birads 4": the family word is what the response writes instead.
- A TNM stage written as one word ("T3N2M0") is also written spaced or punctuated ("T3 N2 M0", "T3, N2, M0").
- A qualifier inside a name may be left out: "central vein occlusion" for "Central retinal vein occlusion".
- An imaging study written "<modality> of the <part> with/without contrast" ("CT of the head without contrast")
  is also "non-contrast head CT", "noncontrast CT of the head", "CT head without contrast", "contrast-enhanced MRI
  of the brain", "head CT".

All names are folded as option_text folds (lower case words separated by single spaces), without the padding.
"""
from __future__ import annotations

import functools

import re2

from .cjk import in_order
_FAMILY_WORDS = ("category", "grade", "class", "stage", "type", "score", "level", "tier")
_NUMBER = re2.compile(r"^(?:\d{1,2}[a-c]?|[ivx]{1,4}[a-c]?)$")
_TNM = re2.compile(r"^(t[0-4xis]{1,2}[a-d]?)(n[0-3x][a-c]?)(m[01x][a-c]?)$")
_MODALITIES = {"ct": ("ct", "ct scan"), "mri": ("mri", "mr", "mri scan"), "mr": ("mr", "mri"),
               "ultrasound": ("ultrasound", "us", "sonography"), "x ray": ("x ray", "radiograph"),
               "radiograph": ("radiograph", "x ray"), "pet ct": ("pet ct",)}
_WITHOUT = ("non contrast", "noncontrast", "unenhanced", "plain")
_WITH = ("contrast enhanced", "contrast", "enhanced")


def numbered_family(words: list[str], all_words: list[list[str]]) -> set[str]:
    """"category 4" for "BI-RADS 4" when at least one other option is the same family with another number."""
    if len(words) < 2 or not _NUMBER.match(words[-1]):
        return set()
    prefix = words[:-1]
    siblings = [ws for ws in all_words if ws and ws[:-1] == prefix and ws[-1] != words[-1] and _NUMBER.match(ws[-1])]
    if not siblings:
        return set()
    out = set()
    for number in (words[-1], *_OTHER_NUMERAL.get(words[-1], ())):  # letters-v12: "grade 2" for "Meyerding grade II"
        out.update(f"{family} {number}" for family in _FAMILY_WORDS)
        out.add("".join(prefix) + " " + number)  # "birads 4"
        out.add("".join(prefix) + number)  # "birads4"
        if len(prefix) >= 2 and prefix[-1] in _FAMILY_WORDS:  # "Kellgren-Lawrence grade 3": "KL grade 3"
            out.add("".join(w[0] for w in prefix[:-1]) + f" {prefix[-1]} {number}")
            out.add("".join(w[0] for w in prefix[:-1]) + f" {number}")
    return out


_ROMANS = ("i", "ii", "iii", "iv", "v", "vi", "vii", "viii", "ix", "x")
_OTHER_NUMERAL = {**{r: (str(k),) for k, r in enumerate(_ROMANS, 1)}, **{str(k): (r,) for k, r in enumerate(_ROMANS, 1)}}


def tnm_spaced(words: list[str]) -> set[str]:
    """"t3 n2 m0" for "T3N2M0"."""
    m = _TNM.match(words[0]) if len(words) == 1 else None
    return {" ".join(m.groups())} if m else set()


def imaging_study(words: list[str]) -> set[str]:
    """The word orders and contrast shorthands of "<modality> of the <part> [with|without contrast]"."""
    text = " ".join(words)
    for modality, names in _MODALITIES.items():
        if not text.startswith(modality + " of the "):
            continue
        rest = text[len(modality) + len(" of the "):].split()
        contrast = None
        if rest[-2:] in (["without", "contrast"], ["with", "contrast"]):
            contrast = rest[-2]
            rest = rest[:-2]
        if not 1 <= len(rest) <= 3:
            return set()
        part = " ".join(rest)
        forms = set()
        for name in names:
            forms.update({f"{part} {name}", f"{name} {part}", f"{name} of the {part}", f"{name} of {part}"})
        forms.update(name for name in names if " " in name)  # "a CT scan": one option alone is a CT
        if contrast is None:
            return forms
        qualifiers = _WITHOUT if contrast == "without" else _WITH
        tail = f"{contrast} contrast"
        # unqualified too ("CT head"): dropped by option_aliases when a sibling differs only in its contrast
        out = forms | {f"{q} {form}" for q in qualifiers for form in forms} | {f"{form} {tail}" for form in forms}
        out.update(f"{q} {name}" for q in qualifiers if q not in ("plain", "contrast", "enhanced") for name in names)
        return out
    return set()


# an option that is only a modality, view, plane, sequence or organ, and the other names a response gives it (its
# whole text must be the key: "Kidney" is "renal", but "Kidney stone" is no "renal ...")
_WHOLE_OPTION = {
    "ct": ("computed tomography", "ct scan", "cat scan", "计算机断层扫描", "计算机断层成像"),
    "mri": ("magnetic resonance imaging", "magnetic resonance", "mr imaging", "mri scan", "磁共振", "核磁共振", "磁共振成像"),
    "x ray": ("radiograph", "radiography", "plain film", "plain radiograph", "xray", "x光", "x线", "x光片", "x线片"),
    "ultrasound": ("sonography", "ultrasonography", "sonogram", "ultrasound scan", "超声", "b超", "彩超", "超声检查"),
    "cfp": ("color fundus photograph", "colour fundus photograph", "color fundus photography",
            "colour fundus photography", "fundus photograph", "fundus photo", "fundus photography", "彩色眼底照相", "眼底照相"),
    "oct": ("optical coherence tomography", "光学相干断层扫描", "光学相干断层成像"),
    "ffa": ("fundus fluorescein angiography", "fluorescein angiography", "fluorescein angiogram", "荧光素眼底血管造影"),
    "icga": ("indocyanine green angiography", "indocyanine green angiogram", "吲哚菁绿血管造影"),
    "posteroanterior": ("pa", "pa view", "pa projection", "postero anterior"),
    "anteroposterior": ("ap", "ap view", "ap projection", "antero posterior"),
    "pa view": ("posteroanterior", "postero anterior", "pa projection", "pa"),
    "ap view": ("anteroposterior", "antero posterior", "ap projection", "ap"),
    "lateral view": ("lateral projection", "lateral radiograph", "lateral chest"),
    "axial": ("transverse", "transaxial", "axial plane", "横断面", "横断位", "轴位", "轴位像"),
    "sagittal": ("sagittal plane", "矢状位", "矢状面"), "coronal": ("coronal plane", "冠状位", "冠状面"),
    "t1 weighted": ("t1", "t1w", "t1 weighted image", "t1wi"), "t2 weighted": ("t2", "t2w", "t2 weighted image", "t2wi"),
    "dwi": ("diffusion weighted", "diffusion weighted imaging", "diffusion weighted image"),
    "flair": ("fluid attenuated inversion recovery",),
    "liver": ("hepatic", "肝脏", "肝"), "kidney": ("renal", "肾脏", "肾"), "spleen": ("splenic", "脾脏", "脾"),
    "pancreas": ("pancreatic", "胰腺"), "lung": ("pulmonary", "肺部", "肺"), "heart": ("cardiac", "心脏"),
    "brain": ("cerebral", "脑部", "颅脑"), "normal": ("正常", "未见异常"), "abnormal": ("异常",),
    # letters-v12: a side ("The pneumothorax is on the right side.", "右侧")
    "left": ("left side", "left sided", "left hand side", "左侧", "左边"), "right": ("right side", "right sided",
                                                                           "right hand side", "右侧", "右边"),
    "bilateral": ("both sides", "bilaterally", "both lungs", "双侧", "两侧"),
}


CAPITALS = frozenset(("pa", "ap", "us"))  # read only where the response writes them in capitals ("PA", not "pa")


@functools.lru_cache(maxsize=1)
def _whole_option() -> dict[str, tuple[str, ...]]:
    from .option_synonyms import fold_cjk  # the Chinese names folded one character a word, as responses are
    return {key: tuple(fold_cjk(name) for name in names) for key, names in _WHOLE_OPTION.items()}


def whole_option_names(words: list[str]) -> set[str]:
    """"computed tomography" for "CT", "renal" for "Kidney", "矢状位" for "Sagittal"."""
    names = _whole_option().get(" ".join(words), ())
    # a name of one character only as the whole response ("肝"): option_aliases keeps it as any alias
    return {n for n in names if len(n.replace(" ", "")) >= 2}


_KEPT = frozenset(("no", "non", "not", "without", "normal", "abnormal", "absent", "negative", "positive", "with",
                   "of", "the", "and", "or", "in", "on", "to", "for", "at", "by", "from", "a", "an"))


def one_word_left_out(words: list[str], all_words: list[list[str]] = ()) -> set[str]:
    """"central vein occlusion" for "Central retinal vein occlusion", "perforated ulcer" for "Perforated peptic
    ulcer": a qualifier inside the name left out (never its first or last word, a polarity or linking word, or a
    number). option_aliases keeps the result only when no other option's text holds it or gives it too."""
    if not 3 <= len(words) <= 6:
        return set()
    others = [ws for ws in all_words if ws != words]
    return {" ".join(words[:k] + words[k + 1:]) for k in range(1, len(words) - 1)
            if words[k] not in _KEPT and words[k].isalpha() and len(words[k]) >= 4 and not _NUMBER.match(words[k])
            # letters-v12: not when another option holds the shortened name with a word of its own inside
            # ("hypertrophic cardiomyopathy" is in "Hypertrophic non-obstructive cardiomyopathy" too)
            and not any(in_order(words[:k] + words[k + 1:], ws) for ws in others)}


_HEADS_OF = frozenset(("fracture", "dislocation", "tear", "rupture", "carcinoma", "cancer", "abscess", "infarction",
                       "hemorrhage", "hematoma", "laceration", "contusion", "stenosis", "torsion", "perforation",
                       "obstruction", "injury"))


_ADJECTIVE_ENDINGS = ("al", "ar", "ic", "ous", "ive", "ed", "ary", "ile")


def of_form(words: list[str]) -> set[str]:
    """letters-v12: "fracture of the clavicle" for "Midshaft clavicle fracture", "torsion of the testis" for "Testis
    torsion": the head noun, then "of (the)" and the part it happens to (with or without the qualifiers before it)."""
    if not 2 <= len(words) <= 4 or words[-1] not in _HEADS_OF or not words[-2].isalpha() or words[-2] in _KEPT \
            or words[-2].endswith(_ADJECTIVE_ENDINGS):
        return set()  # the part is a noun: not "carcinoma of the ductal" for "Invasive ductal carcinoma"
    noun, part, whole = words[-1], words[-2], " ".join(words[:-1])
    return {f"{noun} of the {part}", f"{noun} of {part}", f"{noun} of the {whole}", f"{noun} of {whole}"}


_IN_HEADS = frozenset(("pneumonia", "consolidation", "atelectasis", "collapse", "abscess", "nodule", "mass", "cavity",
                       "infarct", "infarction", "contusion", "hemorrhage", "bronchiectasis"))
_PLACES = frozenset(("lobe", "lung", "segment", "lingula", "hemithorax"))


def in_form(words: list[str]) -> set[str]:
    """letters-v13: "pneumonia in the right lower lobe" for "Right lower lobe pneumonia": the condition, then "in (the)"
    or "of (the)" and the place it is in, when the option is a place in the lung and a condition."""
    if not 3 <= len(words) <= 5 or words[-1] not in _IN_HEADS or words[-2] not in _PLACES:
        return set()
    noun, place = words[-1], " ".join(words[:-1])
    return {f"{noun} in the {place}", f"{noun} of the {place}", f"{noun} in {place}"}


def variants(words: list[str], all_words: list[list[str]]) -> set[str]:
    """Every other writing of the option (folded words) among the options' folded words `all_words`."""
    if not words:
        return set()
    return (numbered_family(words, all_words) | tnm_spaced(words) | imaging_study(words) | whole_option_names(words)
            | one_word_left_out(words, all_words) | of_form(words) | in_form(words))
