"""The held-out parsing corpora (tests/parsing/heldout/README.md): labelled before the rules they measure were
written and never tuned on. The agreement measured at the end of issue 27 is pinned as a floor, so a change
that loses a case fails here; a change that gains one should raise the floor (and be checked on fresh text)."""
import json
from pathlib import Path

import pytest

from benchmarks.medreamm.parsing import diagnosis_name, normalise, parse_response
from leaderboard.scoring.letters import parse_letter

HERE = Path(__file__).with_name("heldout")
LETTERS = [json.loads(line) for line in (HERE / "heldout_letters.jsonl").read_text(encoding="utf-8").splitlines()]
LETTERS_2 = [json.loads(line) for line in (HERE / "heldout_letters2.jsonl").read_text(encoding="utf-8").splitlines()]
LETTERS_3 = [json.loads(line) for line in (HERE / "heldout_letters3.jsonl").read_text(encoding="utf-8").splitlines()]
LISTS = [json.loads(line) for line in (HERE / "heldout_medreamm.jsonl").read_text(encoding="utf-8").splitlines()]


def _agreement(rows: list[dict]) -> list[bool]:
    return [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"] for c in rows]


def test_letters_agree_with_the_careful_reader():
    agree = _agreement(LETTERS)
    # 147 (93.6 %) when first measured; 149 after the acronym change; 157 under letters-v4 (seen: v4 was
    # written knowing these misses, so this set no longer measures unseen text). 156 under letters-v9: line 41
    # ("H&E staining of a lymph node with a starry-sky appearance", Burkitt lymphoma an option) was labelled null
    # before the writers' convention "a description that fits exactly one option takes it"; v9 reads the sign
    # (letter_signs.py) as that convention does. The label stands: labels are never changed to suit a rule.
    assert len(LETTERS) == 157 and sum(agree) >= 156, sum(agree)
    assert not agree[40] and parse_letter(LETTERS[40]["text"], "ABCD", list(LETTERS[40]["options"].values())) == "D"
    option_text = [a for a, c in zip(agree, LETTERS) if "option-text" in c["style"]]
    assert len(option_text) == 85 and sum(option_text) >= 85


def test_the_second_letters_set_agrees_as_measured():
    agree = _agreement(LETTERS_2)
    assert len(LETTERS_2) == 68 and sum(agree) >= 68, sum(agree)  # 63 when measured; 65 after the acronym change; 68 v4


def test_the_third_letters_set_agrees_as_measured():
    agree = _agreement(LETTERS_3)
    assert len(LETTERS_3) == 55 and sum(agree) >= 55, sum(agree)  # 48 before the acronym change, 54 after, 55 v4


def test_medreamm_lists_agree_with_the_careful_reader():
    def read(text):
        return [normalise(diagnosis_name(item)) for item in parse_response(text)]

    agree = [read(c["text"]) == [normalise(x) for x in c["expected"]] for c in LISTS]
    assert len(LISTS) == 34 and sum(agree) == 34


# Each blind set was written and labelled by an independent writer who never saw the product code (README), and
# measured once, unseen, under the rules named first; the rule was then changed after its misses were read, so the
# later figures are seen ones. The floor keeps the last figure, so a change that loses a case fails here.
# (file, rows, floor, null rows, null rows the rule must leave unparseable, what was measured)
BLIND_SETS = [
    ("blind_letters.jsonl", 150, 150, 38, 38, "unseen: letters-v4 at 0eaa477 139 (v3 126); seen: v4 145, v5 150"),
    ("blind_letters2.jsonl", 200, 197, 50, 47, "unseen: v4 155, v5 163; seen: v6 175, v7 196, v9 197"),
    ("blind_letters3.jsonl", 200, 198, 53, 53, "unseen: v5 177, v6 179; seen: v7 198"),
    ("blind_letters4.jsonl", 200, 197, 53, 52, "unseen: v6 182, v7 185; seen: v8 195, v9 197"),
    ("blind_letters5.jsonl", 200, 198, 28, 27, "unseen: v6 191, v7 194, v8 after two changes for set 6 195; seen: 198"),
    ("blind_letters6.jsonl", 200, 198, 27, 27, "unseen: v6 193, v7 194, v8 194; seen: v8 196, v9 198"),
    ("blind_letters7.jsonl", 200, 199, 35, 34, "unseen: v6 191, v7 194, v8 194; seen: v8 196, v9 199"),
    ("blind_letters8.jsonl", 200, 200, 29, 29, "unseen: v8 198, v9 at 4648ab3 198; seen: 200"),
    ("blind_letters9.jsonl", 200, 200, 29, 29, "unseen: v8 196, v9 at 4648ab3 196; seen: 200"),
    ("blind_letters10.jsonl", 200, 200, 28, 28, "unseen: v8 197, v9 at 4648ab3 and at 01c05e7 197; seen: 200"),
    ("blind_letters11.jsonl", 200, 199, 24, 24, "unseen: v8 191, v9 at 4648ab3 193, at b7efb68 194; seen: 199 "
     "(line 58, a repetition loop cut off mid-sentence, stays unparseable)"),
    ("blind_letters12.jsonl", 200, 200, 31, 31, "unseen: v8 195, v9 at 6817d5d 194; seen: 200"),
    ("blind_letters13.jsonl", 200, 200, 35, 35, "unseen: v8 183, v9 at 62a9eaa 184; seen: v10 200"),
    ("blind_letters14.jsonl", 100, 99, 16, 16, "unseen: v8 94, v9 at 62a9eaa 95; seen: v10 99 (line 22: an acute "
     "subdural hematoma read from 'hyperdense' and 'bridging veins', two subdural options: domain inference)"),
    ("blind_letters16.jsonl", 200, 199, 33, 33, "unseen: v10 at cb5650c 190, v11 before it was read 190; seen: v11 199 "
     "(line 42: a Salter-Harris III described, not named: domain inference)"),
    ("blind_letters19.jsonl", 200, 200, 32, 32, "unseen: v10 at cb5650c 192, v11 at eb57c70 193; seen: v11 200"),
    ("blind_letters20.jsonl", 200, 198, 32, 32, "unseen: v10 at cb5650c 195, v11 at 8136c17 195; seen: v11 198 (lines "
     "95 and 144: esophageal varices and erythema toxicum described, not named: domain inference)"),
    ("blind_letters17.jsonl", 200, 197, 33, 32, "unseen: v10 at cb5650c 187, v11 at 692d8ce 187; seen: v11 197 (left: a "
     "Chinese analysis cut off, a lean 'but it could also be', a normal study in prose)"),
    ("blind_letters22.jsonl", 200, 198, 29, 28, "unseen: v10 at cb5650c 186, v11 at 692d8ce 188; seen: v11 197, v13 198 "
     "(left: a mechanism described, a retraction by rejecting the chosen option's text)"),
    ("blind_letters15.jsonl", 200, 200, 31, 31, "unseen: v10 at cb5650c 193, v11 at 692d8ce and 0f65d7e 194; seen: v12 200"),
    ("blind_letters18.jsonl", 200, 198, 31, 30, "unseen: v10 at cb5650c 184, v11 at 692d8ce and 0f65d7e 188; seen: v12 "
     "198 (left: an ECG analysis cut off on 'sawtooth', a placenta covering the os described in Chinese)"),
    ("blind_letters21.jsonl", 200, 197, 29, 29, "unseen: v10 at cb5650c 186, v11 at 692d8ce and 0f65d7e 186; seen: v12 "
     "197 (left: three descriptions a clinician maps: laser to the whole periphery, the side nearest the fovea, a "
     "smooth dome with a thin inner layer)"),
    ("blind_letters26.jsonl", 200, 200, 30, 30, "unseen: v11 at 0f65d7e 194, v12 at a524084 194; seen: v12 200"),
    ("blind_letters27.jsonl", 200, 197, 32, 32, "unseen: v11 at 0f65d7e 181, v12 at a524084 182; seen: v12 197 (left: "
     "two grades described, not named, and line 116 'the correct answer is C) Left lower lobe' where that is B, which "
     "the writer labels C against the brief's letter/text convention)"),
    ("blind_letters24.jsonl", 200, 200, 31, 31, "unseen: v11 at 0f65d7e 189, v12 at a2911e6 190; seen: v12 200"),
    ("blind_letters23.jsonl", 200, 194, 30, 29, "unseen: v11 at 0f65d7e 181, v12 at fca3734 181; seen: v12 194 (left: "
     "a repetition cut off, a which-is-absent item answered in Chinese, two tube positions in prose, a Chinese letter "
     "against its gloss, 'UIP' between definite and probable UIP)"),
    ("blind_letters25.jsonl", 200, 198, 30, 29, "unseen: v11 at 0f65d7e 177, v12 at 6a48d9d 179; seen: v12 198 (left: a "
     "simple cyst described in Chinese, an English analysis cut off on an adjective)"),
    ("blind_letters28.jsonl", 200, 200, 30, 30, "unseen: v11 at 0f65d7e 195, v12 at 8228894 196; seen: v12 200"),
    ("blind_letters29.jsonl", 200, 200, 32, 32, "unseen: v11 at 0f65d7e 188, v12 at a6b1c01 190; seen: v12 200"),
    ("blind_letters30.jsonl", 200, 198, 30, 30, "unseen: v11 at 0f65d7e 191, v12 at a6b1c01 193; seen: v12 198 (left: "
     "surgical exploration and a non-contrast head CT described in the writer's own words)"),
    ("blind_letters31.jsonl", 200, 200, 32, 32, "unseen: v11 at 0f65d7e 189, v12 at a6b1c01 189; seen: v12 200"),
    ("blind_letters35.jsonl", 200, 195, 32, 32, "unseen: v11 at 0f65d7e 193, v12 at 76ec5c1 192; seen: v12 195 (left: a "
     "hilar cholangiocarcinoma described, a commitment cut off mid-sentence, an echoed option list read by a sign, a "
     "next step in other words, an option list before a bare closing name)"),
    # round 11: kept unread through round 10, measured unseen under v12 (sets 32-34 at 76ec5c1, 36-38 at 8b1470d), then
    # read for letters-v13
    ("blind_letters32.jsonl", 200, 199, 29, 29, "unseen: v11 at 0f65d7e 194, v12 at 76ec5c1 194; seen: v13 199 (left: "
     "a pericardial effusion described)"),
    ("blind_letters33.jsonl", 200, 198, 29, 29, "unseen: v11 192, v12 at 76ec5c1 193; seen: v13 198 (left: a haemothorax "
     "described, 'scapholunate dissociation' beside a lunate in its fossa)"),
    ("blind_letters34.jsonl", 200, 197, 34, 34, "unseen: v11 185, v12 at 76ec5c1 186; seen: v13 197 (left: two "
     "descriptions a clinician maps, 'Intussusception.' for 'Ileocolic intussusception', which the project's earlier "
     "corpora label unparseable as a head noun alone)"),
    ("blind_letters36.jsonl", 200, 199, 31, 31, "unseen: v11 194, v12 at 8b1470d 195; seen: v13 199 (left: a boxer's "
     "fracture described)"),
    ("blind_letters37.jsonl", 200, 196, 30, 30, "unseen: v11 192, v12 at 8b1470d 192; seen: v13 196 (left: a "
     "subperiosteal abscess described in English and Chinese, a lean cut off while reconsidering, 'probably A, but it "
     "might also be C', which earlier corpora label unparseable)"),
    ("blind_letters38.jsonl", 200, 195, 30, 29, "unseen: v11 193, v12 at 8b1470d 193; seen: v13 195 (left: three "
     "descriptions, 'Posterior STEMI' for 'Posterior myocardial infarction', a stenosis grade by its range)"),
    # round 11: written for this round, measured unseen under letters-v13 at 71b6dfb (v12 at f76b7ff beside it), then read
    ("blind_letters39.jsonl", 200, 200, 30, 30, "unseen: v12 192, v13 at 71b6dfb 193; seen: v13 200"),
    ("blind_letters40.jsonl", 200, 193, 34, 33, "unseen: v12 185, v13 at 71b6dfb 185; seen: v13 193 (left: five "
     "musculoskeletal descriptions a clinician maps, a tendon 'rupture' for a 'tear', a stress fracture not among the "
     "options read as the subchondral one)"),
    ("blind_letters41.jsonl", 200, 196, 30, 30, "unseen: v12 192, v13 at 71b6dfb 192; seen: v13 196 (left: two "
     "descriptions, 'BBPS 2', 'likely C, but it could also be B', which earlier corpora label unparseable)"),
    ("blind_letters42.jsonl", 200, 198, 29, 29, "unseen: v12 193, v13 at 71b6dfb 194; seen: v13 198 (left: two "
     "descriptions: a boot-shaped heart, a blue nevus)"),
    ("blind_letters44.jsonl", 200, 196, 30, 29, "unseen: v12 193, v13 at 71b6dfb 194; seen: v13 196 (left: three "
     "descriptions (hypopyon, a monocyte, a tympanic perforation in Chinese) and a fundus description read as its sign)"),
    ("blind_letters45.jsonl", 200, 199, 31, 31, "unseen: v12 189, v13 at 71b6dfb 189; seen: v13 199 (left: the third "
     "ventricle described by its place, not named)"),
    # round 12: written after letters-v13 was final, measured once, unseen, at 973d3a7; not read since (the rule
    # was not changed). With the letter reader on the rows left unparseable: test_letters_reader_replay.py.
    ("blind_letters51.jsonl", 200, 196, 33, 33, "unseen: v13 at 973d3a7 196; with the reader 200"),
    ("blind_letters52.jsonl", 200, 197, 33, 32, "unseen: v13 at 973d3a7 197; with the reader 198"),
    ("blind_letters53.jsonl", 200, 192, 30, 29, "unseen: v13 at 973d3a7 192; with the reader 199"),
    ("blind_letters54.jsonl", 200, 200, 32, 32, "unseen: v13 at 973d3a7 200; with the reader 200"),
    ("blind_letters55.jsonl", 200, 197, 33, 32, "unseen: v13 at 973d3a7 197; with the reader 198"),
    ("blind_letters56.jsonl", 200, 199, 28, 27, "unseen: v13 at 973d3a7 199; with the reader 199"),
]


@pytest.mark.parametrize("name, cases, floor, nulls, nulls_floor, measured", BLIND_SETS, ids=[s[0] for s in BLIND_SETS])
def test_a_blind_letters_set_agrees_as_measured(name, cases, floor, nulls, nulls_floor, measured):
    rows = [json.loads(line) for line in (HERE / name).read_text(encoding="utf-8").splitlines()]
    agree = _agreement(rows)
    assert len(rows) == cases and sum(agree) >= floor, (sum(agree), measured)
    unparseable = [a for a, c in zip(agree, rows) if c["expected"] is None]
    assert len(unparseable) == nulls and sum(unparseable) >= nulls_floor, (sum(unparseable), measured)  # never guess
