"""Mentions of an option that assert nothing because of their grammar (rules letters-v5 to v11): a counterfactual
("Glioblastoma would be intra-axial", "..., which would indicate a teardrop fracture" after a denied finding), the
consequent of an if-clause ("if the invasion is only abutment, it would be T3N2M0"), and an item of a list of
possibilities ("may be consistent with a keratoacanthoma, squamous cell carcinoma, or actinic keratosis").
option_text reads them on its folded text (`text`, words separated by single spaces) or on the response (`source`).
"""
from __future__ import annotations

POSSIBLE = {("could", "be"), ("might", "be"), ("may", "be"), ("can", "be"),  # v11: "can be caused by X, Y, or Z" ("possibly", "a"), ("perhaps", "a"),
             # letters-v8: "could fit either a central or a branch retinal vein occlusion"
             ("could", "fit"), ("might", "fit"), ("may", "fit"), ("could", "represent"), ("might", "represent"),
             ("may", "represent")}


def words_before(text: str, start: int, count: int) -> tuple[str, ...]:
    return tuple(text[max(0, start - 60):start].split()[-count:])  # count >= 1


def words_after(text: str, end: int, count: int) -> tuple[str, ...]:
    return tuple(text[end:end + 60].split()[:count])


_IF_WORDS = frozenset(("if", "unless", "assuming", "supposing"))


def consequent(source: str, i: int, clause_words: list[str]) -> bool:
    """letters-v10: is the mention at source[i] what would follow from a condition stated earlier in its sentence
    ("However, if the invasion is only abutment, it would be T3N2M0")? Not "If I had to choose, it would be X"."""
    tail = source[i:i + 80]
    tail = tail[:min([k for k in (tail.find(ch) for ch in ".!?\n;") if k >= 0] + [len(tail)])].lower().split()
    head = source[max(0, i - 300):i]
    head = head[max(head.rfind(ch) for ch in ".!?\n;") + 1:].lower().replace(",", " ")
    words = head.split()
    opens_with_if = len(words) <= 8 and bool(words) and words[0] in _IF_WORDS  # letters-v11: "; if negative, LP."
    if not {"would", "then"} & set(clause_words) and "would" not in tail[1:4] and not opens_with_if:
        return False  # letters-v11: "if this is a typical case, pneumothorax would be the answer" (after it)
    return bool(_IF_WORDS & set(words)) and not ({"had", "have", "must", "forced"} & set(words))


_CONTRASTS = ("but ", "但", "however")


def possibilities_listed(source: str, i: int) -> bool:
    """letters-v9: is the mention at source[i] an item of a list of possibilities that runs past commas ("The lesion
    may be consistent with a keratoacanthoma, squamous cell carcinoma, or actinic keratosis.")? Its sentence offers
    them ("may be", "could be", "might represent" before the mention) and lists them with a comma and an "or"."""
    head = source[max(0, i - 300):i]
    head = head[max(head.rfind(ch) for ch in ".!?\n;") + 1:].lower()
    head = head[max([head.rfind(word) + len(word) for word in _CONTRASTS if word in head] + [0]):]  # letters-v12: "It could be either X or Y,
    # but ... makes Y more likely": after the "but" the sentence commits; the list before it does not hold this Y
    tail = source[i:i + 300]
    ends = [k for k in (tail.find(ch) for ch in ".!?\n;") if k >= 0]
    sentence = head + tail[:min(ends) if ends else len(tail)].lower()
    before = head.replace(",", " ").split()
    return any(pair in POSSIBLE for pair in zip(before, before[1:])) and "," in sentence and " or " in sentence


_COMMITS_AFTER_WOULD = {"my", "the", "most", "best", "correct", "favored", "favoured", "preferred", "likely"}
_NEEDED = {"needed", "required", "necessary", "useful", "helpful", "indicated", "considered", "recommended", "a", "an"}
_DESCRIBING = {"show", "have", "appear", "demonstrate", "typically", "usually", "look", "display", "present", "not"}


_CHOOSERS = {"answer", "diagnosis", "choice", "option", "pick", "it", "this", "that", "which", "i", "we", "mine", "one",
             "so", "therefore", "thus", "hence", "likely", "probably", "most", "best",
             # letters-v11: "so the category would be BI-RADS 4 or BI-RADS 5"
             "category", "grade", "stage", "class", "classification", "type", "score", "level"}


_MEANING = {"indicate", "suggest", "mean", "imply", "represent", "signify"}
_ABSENCE = {"no", "not", "dont", "doesnt", "isnt", "arent", "without", "absent", "absence", "lack", "lacks"}


def _what_an_absent_finding_would_mean(text: str, start: int) -> bool:
    """letters-v11: "I don't see a triangular fragment ..., which would indicate a teardrop fracture": the option is
    what a finding the response denies would mean."""
    words = text[max(0, start - 200):start].split()
    while words and words[-1] in ("a", "an", "the"):
        words.pop()
    if len(words) < 3 or words[-3:-1] != ["which", "would"] or words[-1] not in _MEANING:
        return False
    return bool(_ABSENCE.intersection(words[-28:-3]))


_WOULD_ADVERBS = frozenset(("instead", "typically", "usually", "generally", "rather", "classically", "then"))


def counterfactual(text: str, end: int, start: int = -1) -> bool:
    """Is the mention ending at `end` followed by "would ..." describing it ("Glioblastoma would be intra-axial",
    "a meningioma would show a dural tail"), not "would be the/my/most likely ..." choosing it? Or (letters-v7)
    the complement of a finding that "would be" it ("Biconvex would be epidural"), not "the answer would be X"?"""
    before = words_before(text, start, 3) if start >= 0 else ()
    if len(before) == 3 and before[1:] == ("would", "be") and before[0] not in _CHOOSERS:
        return True
    if start >= 0 and _what_an_absent_finding_would_mean(text, start):
        return True
    after = [w for w in words_after(text, end, 5) if w not in _WOULD_ADVERBS][:3]  # v12: "X would instead be ..."
    if len(after) < 3 or after[0] != "would":
        return False
    if after[1] == "be":
        return after[2] not in _COMMITS_AFTER_WOULD and after[2] not in _NEEDED
    return after[1] in _DESCRIBING
