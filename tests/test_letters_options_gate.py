"""letters.needs_options / needs_options_batch skip the second parse (with the item's option texts) only where the
options cannot change the letter: the gated batch path must give exactly what one ungated
`parse_letter(text, letters, options)` per row gives. Checked on every labelled corpus's texts (the blind sets'
text field only: their labels are not read), each with its own options, option sets of other corpora, options cut
from its own words (so letters are followed by option texts) and hand-made sets holding letters, numbers, other
names and initialisms; and on X-PCR-like generated responses."""
import json
import random
from pathlib import Path

import numpy as np
import pyarrow as pa

from leaderboard.scoring.letters import LETTERS, needs_options, parse_letter

PARSING = Path(__file__).parent / "parsing"
LABELLED = ["letter_corpus.jsonl", "letter_options_corpus.jsonl", "letter_v4_corpus.jsonl", "letter_v5_corpus.jsonl",
            "medreamm_list_corpus.jsonl", "heldout/heldout_letters.jsonl", "heldout/heldout_letters2.jsonl",
            "heldout/heldout_letters3.jsonl", "heldout/heldout_medreamm.jsonl"]
BLIND = ["heldout/blind_letters.jsonl", "heldout/blind_letters2.jsonl", "heldout/blind_letters3.jsonl",
         "heldout/blind_letters4.jsonl", "heldout/blind_letters5.jsonl", "heldout/blind_letters6.jsonl",
         "heldout/blind_letters7.jsonl", "heldout/blind_letters8.jsonl", "heldout/blind_letters9.jsonl",
         "heldout/blind_letters10.jsonl", "heldout/blind_letters11.jsonl",
         "heldout/blind_letters12.jsonl", "heldout/blind_letters13.jsonl", "heldout/blind_letters14.jsonl",
         "heldout/blind_letters16.jsonl", "heldout/blind_letters19.jsonl", "heldout/blind_letters20.jsonl",
         "heldout/blind_letters17.jsonl", "heldout/blind_letters22.jsonl", "heldout/blind_letters15.jsonl",
         "heldout/blind_letters18.jsonl", "heldout/blind_letters21.jsonl", "heldout/blind_letters26.jsonl",
         "heldout/blind_letters27.jsonl", "heldout/blind_letters24.jsonl", "heldout/blind_letters23.jsonl",
         "heldout/blind_letters25.jsonl", "heldout/blind_letters28.jsonl", "heldout/blind_letters29.jsonl",
         "heldout/blind_letters30.jsonl", "heldout/blind_letters31.jsonl", "heldout/blind_letters35.jsonl",
         "heldout/blind_letters32.jsonl", "heldout/blind_letters33.jsonl", "heldout/blind_letters34.jsonl",
         "heldout/blind_letters36.jsonl", "heldout/blind_letters37.jsonl", "heldout/blind_letters38.jsonl",
         "heldout/blind_letters39.jsonl", "heldout/blind_letters40.jsonl", "heldout/blind_letters41.jsonl",
         "heldout/blind_letters42.jsonl", "heldout/blind_letters44.jsonl", "heldout/blind_letters45.jsonl"]
_BLEED = ["Epidural hematoma", "Subdural hematoma", "Subarachnoid hemorrhage", "Intraparenchymal hemorrhage"]
_LEUKEMIA = ["Acute myeloid leukemia", "Acute lymphoblastic leukemia", "Chronic myeloid leukemia",
             "Chronic lymphocytic leukemia"]
# letters-v8's classes (tests/parsing/test_letter_rule_v8.py), read by the gate with the corpora
V8_CASES = [
    ("Differential (most to least likely):\n1. Subarachnoid hemorrhage\n2. Subdural hematoma", _BLEED),
    ("Differential:\n1. Subdural hematoma (C) — most likely\n2. Epidural hematoma", _BLEED),
    ("We can exclude ALL (B) and CLL (D). Between AML (A) and", _LEUKEMIA),
    ("The smear shows blasts typical of acute myeloid leukemia (A), which", _LEUKEMIA),
    ("B... no, sorry, A. Auer rods.", _LEUKEMIA), ("Most likely B (ALL), though AML (A) remains in the differential.",
                                                   _LEUKEMIA),
    ("The slide shows follicular architecture.", ["Papillary carcinoma", "Follicular carcinoma"]),
]
HAND_MADE = [
    ["Hepatitis A", "Hepatitis B", "Hepatitis C"], ["BI-RADS 2", "BI-RADS 3", "BI-RADS 4", "BI-RADS 5"],
    ["Mobitz I", "Mobitz II", "Complete heart block"], ["Christmas disease", "Von Willebrand disease"],
    ["Escherichia coli", "Staphylococcus aureus", "Streptococcus pneumoniae"],
    ["Acute respiratory distress syndrome", "Pulmonary embolism", "Pericardial effusion", "Pneumothorax"],
    ["Glioblastoma multiforme", "Meningioma", "Metastasis", "Brain abscess", "Primary CNS lymphoma"],
    ["Yes", "No"], ["CT", "MRI", "Ultrasound", "PET"], ["Crohn's disease", "Ulcerative colitis", "Ischemic colitis"],
    ["T2-weighted", "T1-weighted", "FLAIR", "DWI"], ["Wenckebach", "Mobitz type 2", "Third degree AV block"],
]

_PLEURA = ["Pneumothorax", "Pleural effusion", "Lobar pneumonia"]
# each needs the second parse for one reason only (the letter changes with the options): a correction to a text, an
# ordinal before a text, a checklist of option texts or an echoed yes/no list, struck-out text before a text
ONE_REASON = [
    ("答案是C（胸腔积液）", ["气胸", "胸腔积液", "大叶性肺炎", "肺水肿"]),  # v11: a Chinese word right before the letter
    ("The answer is A. No, scratch that, I mean pleural effusion.", _PLEURA),
    ("The answer is A. Wait, I mean pleural effusion.", _PLEURA),
    ("Answer: the first option: Pleural effusion", _PLEURA), ("My pick is the second option - Pneumothorax.", _PLEURA),
    ("A\nPneumothorax: no\nPleural effusion: yes", _PLEURA), ("A\nPneumothorax ❌\nPleural effusion ✅", _PLEURA),
    ("B: ~~Pneumonia~~ Pneumothorax", _PLEURA), ("B. ~~Lobar~~ Pneumothorax.", _PLEURA),
    ("Option A: Yes\nOption B: No", ["Yes", "No"]),
    # ... or a letter before another option's text written differently: a Latin or English plural, an eponym's
    # possessive, an initialism
    ("Answer: B. Metastases.", ["Metastasis", "Meningioma"]), ("Answer: B: nodules", ["Nodule", "Cyst"]),
    ("The answer is B: Parkinson disease.", ["Parkinson's disease", "Essential tremor"]),
    ("The answer is B: Cushings syndrome.", ["Cushing syndrome", "Addison disease"]),
    ("The answer is B: ARDS.", ["Acute respiratory distress syndrome", "Pulmonary edema"]),
    # letters-v8's correction markers before an option's text
    ("The answer is A. No, sorry, it's pleural effusion.", _PLEURA), ("A... no, it's pleural effusion.", _PLEURA),
    ("答案A。更正：it's pleural effusion.", _PLEURA),
    ('{"answer": "A", "diagnosis": "Pleural effusion"}', _PLEURA),  # letters-v8: a JSON text field
    # letters-v9: a later conclusion phrase before another option's text, spaced or marked up in the raw text
    ("Answer: A\n\nThe blunted angle is most consistent with pleural effusion.", _PLEURA),
    ("A\n\nThese findings are characteristic  of **a pleural effusion**.", _PLEURA),
    ("Answer: A\nThe meniscus is diagnostic of `pleural effusion`.", _PLEURA),
]


def _rows(path: Path, text_only: bool):
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            case = json.loads(line)
            options = None if text_only else case.get("options")
            if isinstance(options, dict):
                options = [options[k] for k in sorted(options)]
            yield case["text"], (options if isinstance(options, list) and all(isinstance(o, str) for o in options)
                                 else None)


def _xpcr_like(rng: random.Random) -> list[tuple[str, list[str]]]:
    rows = []
    for k in range(300):
        n = rng.choice((2, 4, 5))
        stage = rng.choice(("iqa", "al", "lc", "dd", "sg", "cd"))
        options = [f"{stage} finding {j} variant {rng.randrange(40)}" for j in range(n)]
        letter = LETTERS[rng.randrange(n)]
        rows.append((rng.choice([
            f"Finding {k} on this image points to option ({letter}), given the pattern.",
            f"Finding {k % 5} on this image points to option ({letter}), given the pattern.",
            f"Answer: {letter}", f"({letter}) {options[rng.randrange(n)]}", f"Option {rng.randrange(1, n + 1)}: "
            f"{options[rng.randrange(n)]}", f"{letter}: finding {rng.randrange(n)} variant", f"Answer: {rng.randrange(1, 6)}",
            f"The answer is {letter}. Actually, it's {options[0]}.", f"{options[rng.randrange(n)]}.",
        ]), options))
    return rows


def _cases() -> list[tuple[str, list[str]]]:
    rng = random.Random(7)
    labelled = [row for name in LABELLED for row in _rows(PARSING / name, False)]
    texts = [text for text, _ in labelled] + [text for name in BLIND for text, _ in _rows(PARSING / name, True)]
    option_sets = [o for _, o in labelled if o] + HAND_MADE
    cases = [(text, options) for text, options in labelled if options] + ONE_REASON + V8_CASES
    for text in texts:
        for options in rng.sample(option_sets, 2):
            cases.append((text, options))
        words = text.split()
        if len(words) >= 3:  # options cut from the text's own words: letters come to stand before option texts
            cut = []
            for _ in range(rng.choice((2, 3, 4))):
                i = rng.randrange(len(words))
                cut.append(" ".join(words[i:i + rng.choice((1, 2, 3))]).strip(".,:;()*"))
            cases.append((text, [c or "x" for c in cut]))
    return cases + _xpcr_like(rng)


CASES = _cases()
EXPECTED = [parse_letter(text, LETTERS[:max(2, min(5, len(o)))], o) for text, o in CASES]


def test_the_gated_batch_path_equals_one_ungated_parse_per_row():
    from benchmarks.xpcr.scorer import _parse_responses

    n_options = np.array([max(2, min(5, len(o))) for _, o in CASES], dtype=np.int64)
    got = _parse_responses(pa.array([t for t, _ in CASES], pa.string()), n_options, np.ones(len(CASES), dtype=bool),
                           pa.array([o for _, o in CASES], pa.list_(pa.string())))
    wrong = [(CASES[k], EXPECTED[k], got[k]) for k in range(len(CASES))
             if got[k] != (-1 if EXPECTED[k] is None else LETTERS.index(EXPECTED[k]))]
    assert not wrong, wrong[:5]


def test_needs_options_is_false_only_where_the_options_cannot_change_the_letter():
    skipped = changed = 0
    for (text, options), expected in zip(CASES, EXPECTED):
        without = parse_letter(text, LETTERS[:max(2, min(5, len(options)))])
        changed += without != expected
        if not needs_options(without, options, text):
            skipped += 1
            assert expected == without, (text, options)
    # not vacuous: the options change many letters, and the gate still spares many rows their second parse
    assert changed >= 1000 and skipped >= 1500, (changed, skipped, len(CASES))


def test_each_hand_made_case_changes_with_its_options():
    """The cases above are not vacuous: the options change each one's letter (so the gate must let each through)."""
    for text, options in ONE_REASON:
        letters = LETTERS[:len(options)]
        assert parse_letter(text, letters) != parse_letter(text, letters, options), text
        assert needs_options(parse_letter(text, letters), options, text), text
