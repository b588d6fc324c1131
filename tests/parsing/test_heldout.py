"""The held-out parsing corpora (tests/parsing/heldout/README.md): labelled before the rules they measure were
written and never tuned on. The agreement measured at the end of issue 27 is pinned as a floor, so a change
that loses a case fails here; a change that gains one should raise the floor (and be checked on fresh text)."""
import json
from pathlib import Path

from benchmarks.medreamm.parsing import diagnosis_name, normalise, parse_response
from leaderboard.scoring.letters import parse_letter

HERE = Path(__file__).with_name("heldout")
LETTERS = [json.loads(line) for line in (HERE / "heldout_letters.jsonl").read_text(encoding="utf-8").splitlines()]
LETTERS_2 = [json.loads(line) for line in (HERE / "heldout_letters2.jsonl").read_text(encoding="utf-8").splitlines()]
LETTERS_3 = [json.loads(line) for line in (HERE / "heldout_letters3.jsonl").read_text(encoding="utf-8").splitlines()]
LISTS = [json.loads(line) for line in (HERE / "heldout_medreamm.jsonl").read_text(encoding="utf-8").splitlines()]


def test_letters_agree_with_the_careful_reader():
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in LETTERS]
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
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in LETTERS_2]
    assert len(LETTERS_2) == 68 and sum(agree) >= 68, sum(agree)  # 63 when measured; 65 after the acronym change; 68 v4


def test_the_third_letters_set_agrees_as_measured():
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in LETTERS_3]
    assert len(LETTERS_3) == 55 and sum(agree) >= 55, sum(agree)  # 48 before the acronym change, 54 after, 55 v4


def test_medreamm_lists_agree_with_the_careful_reader():
    def read(text):
        return [normalise(diagnosis_name(item)) for item in parse_response(text)]

    agree = [read(c["text"]) == [normalise(x) for x in c["expected"]] for c in LISTS]
    assert len(LISTS) == 34 and sum(agree) == 34


BLIND = [json.loads(line) for line in (HERE / "blind_letters.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_blind_letters_set_agrees_as_measured():
    """150 responses written and labelled by an independent writer who never saw the product code; measured
    once under letters-v4 as it stood when declared final (commit 0eaa477, bench/letters_agreement.py): 139/150
    (letters-v3: 126). The rule was then changed after its misses were read: 145 under letters-v4 at its last
    commit, 150 under letters-v5 (option numbers, "it's e.", letters labelling option texts, a head noun listed
    beside another option), all seen figures."""
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in BLIND]
    assert len(BLIND) == 150 and sum(agree) >= 150, sum(agree)  # 139 unseen (letters-v4)
    unparseable = [a for a, c in zip(agree, BLIND) if c["expected"] is None]
    assert len(unparseable) == 38 and sum(unparseable) >= 38  # never guess where the reader has no letter


BLIND_2 = [json.loads(line) for line in (HERE / "blind_letters2.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_second_blind_letters_set_agrees_as_measured():
    """200 responses from a second independent writer (README): measured once, unseen, under letters-v4 (155)
    and letters-v5 (163). Then seen: letters-v6 (other names of a condition, option_synonyms.py) was written after
    reading its misses and reaches 175; letters-v7 (written after reading the v6 misses, by class) 196. The floor
    keeps the last figure; its gains here are not unseen figures."""
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in BLIND_2]
    assert len(BLIND_2) == 200 and sum(agree) >= 197, sum(agree)  # 197 under letters-v9
    unparseable = [a for a, c in zip(agree, BLIND_2) if c["expected"] is None]
    assert len(unparseable) == 50 and sum(unparseable) >= 47


BLIND_3 = [json.loads(line) for line in (HERE / "blind_letters3.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_third_blind_letters_set_agrees_as_measured():
    """200 responses from a third independent writer (README): measured once, unseen, under letters-v5 (177) and
    letters-v6 (179). Then seen: letters-v7 was written after reading its misses and reaches 198. The floor keeps the
    last figure; its gains here are not unseen figures."""
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in BLIND_3]
    assert len(BLIND_3) == 200 and sum(agree) >= 198, sum(agree)
    unparseable = [a for a, c in zip(agree, BLIND_3) if c["expected"] is None]
    assert len(unparseable) == 53 and sum(unparseable) >= 53


BLIND_4 = [json.loads(line) for line in (HERE / "blind_letters4.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_fourth_blind_letters_set_agrees_as_measured():
    """200 responses from a fourth independent writer (README): measured once, unseen, under letters-v6 (182) and
    letters-v7 (185). Then seen: letters-v8 was written after reading v7's misses and reaches 195. The floor keeps
    the last figure; its gains here are not unseen figures."""
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in BLIND_4]
    assert len(BLIND_4) == 200 and sum(agree) >= 197, sum(agree)  # 197 under letters-v9
    unparseable = [a for a, c in zip(agree, BLIND_4) if c["expected"] is None]
    assert len(unparseable) == 53 and sum(unparseable) >= 52


BLIND_5 = [json.loads(line) for line in (HERE / "blind_letters5.jsonl").read_text(encoding="utf-8").splitlines()]
BLIND_6 = [json.loads(line) for line in (HERE / "blind_letters6.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_fifth_and_sixth_blind_letters_sets_agree_as_measured():
    """200 responses each from two more independent writers (README), written as a realistic run's mix rather
    than worst cases. Measured once each, unseen: set 6 under letters-v6 / -v7 / -v8 as it then stood: 193, 194, 194;
    set 5 (read after set 6's misses had changed v8 twice): 191, 194, 195. Then seen: the final letters-v8 reads
    198 and 196; letters-v9 (a normal study, "the image quality is good" still missed) 198 and 198. The floors keep the
    last figures; those gains are not unseen figures."""
    for rows, floor, nulls, nulls_right in ((BLIND_5, 198, 28, 27), (BLIND_6, 198, 27, 27)):
        agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
                 for c in rows]
        assert len(rows) == 200 and sum(agree) >= floor, sum(agree)
        unparseable = [a for a, c in zip(agree, rows) if c["expected"] is None]
        assert len(unparseable) == nulls and sum(unparseable) >= nulls_right


BLIND_7 = [json.loads(line) for line in (HERE / "blind_letters7.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_seventh_blind_letters_set_agrees_as_measured():
    """200 responses from a seventh independent writer, a real run's mix across specialties, a fifth of it Chinese
    (README): measured once, unseen, under letters-v6 (191), -v7 (194) and the final letters-v8 (194). Then seen: two
    changes for its misses ("B is more likely", a JSON text field naming another option) read 196. The floor keeps
    the last figure; letters-v9 (a normal study, a kidney stone in the ureter, the T-sign) reads 199."""
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in BLIND_7]
    assert len(BLIND_7) == 200 and sum(agree) >= 199, sum(agree)
    unparseable = [a for a, c in zip(agree, BLIND_7) if c["expected"] is None]
    assert len(unparseable) == 35 and sum(unparseable) >= 34


BLIND_8_TO_10 = [[json.loads(line) for line in (HERE / f"blind_letters{n}.jsonl").read_text(encoding="utf-8").splitlines()]
                 for n in (8, 9, 10)]


def test_the_eighth_to_tenth_blind_letters_sets_agree_as_measured():
    """200 responses each from three more independent writers, a real run's mix (README). Measured once each, unseen,
    under letters-v8 (359cd9b) and letters-v9 as first committed (4648ab3, before any of the three was read): 198,
    196 and 197 under both, 591/600 = 98.5 %; set 10 also under v9 after sets 8 and 9 had been read (01c05e7): 197.
    Then seen: v9's changes for their misses read 200 each. The floors keep the last figures."""
    for rows, nulls in zip(BLIND_8_TO_10, (29, 29, 28)):
        agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
                 for c in rows]
        assert len(rows) == 200 and sum(agree) >= 200, sum(agree)
        unparseable = [a for a, c in zip(agree, rows) if c["expected"] is None]
        assert len(unparseable) == nulls and sum(unparseable) >= nulls


BLIND_12 = [json.loads(line) for line in (HERE / "blind_letters12.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_twelfth_blind_letters_set_agrees_as_measured():
    """200 responses from a twelfth independent writer, a real run's mix (README). Measured once, unseen, under
    letters-v8 (359cd9b: 195) and letters-v9 as it stood after sets 8-10 (6817d5d: 194: a disclaimer that only
    describes, read through a classic sign). Then seen: v9's changes for its misses read 200."""
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in BLIND_12]
    assert len(BLIND_12) == 200 and sum(agree) >= 200, sum(agree)
    unparseable = [a for a, c in zip(agree, BLIND_12) if c["expected"] is None]
    assert len(unparseable) == 31 and sum(unparseable) >= 31


BLIND_11 = [json.loads(line) for line in (HERE / "blind_letters11.jsonl").read_text(encoding="utf-8").splitlines()]


def test_the_eleventh_blind_letters_set_agrees_as_measured():
    """200 responses from an eleventh independent writer, a real run's mix, nearly all five-option items (README).
    Measured once, unseen, under letters-v8 (359cd9b: 191), letters-v9 as first committed (4648ab3: 193) and v9 after
    sets 8-10 and 12 had been read (b7efb68: 194; three of its six misses were reasoning followed by the answer alone
    on the last line). Then seen: 199 (line 58, a repetition loop cut off mid-sentence, stays unparseable)."""
    agree = [parse_letter(c["text"], c["letters"], [c["options"][k] for k in c["letters"]]) == c["expected"]
             for c in BLIND_11]
    assert len(BLIND_11) == 200 and sum(agree) >= 199, sum(agree)
    unparseable = [a for a, c in zip(agree, BLIND_11) if c["expected"] is None]
    assert len(unparseable) == 24 and sum(unparseable) >= 24
