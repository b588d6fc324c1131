"""Edges of the letter rule that mutation testing showed unpinned (issue 17): lower-case letters outside an
explicit statement, hedged leading letters, bracketed leading letters and echoed option lists, the second
line of a leading letter, and the 150-character window and clause bounds of the hypothetical check
("If ..., the answer would be D"). Each case names what a careful reader takes and why."""
import re

import pytest

from leaderboard.scoring.letters import parse_letter

CASES = [
    # lower-case letters count only where no word is meant
    ("c because the macula is spared", None),  # leading lower-case letter before a word: not an option
    ("The answer is c\nbecause", "C"),  # explicit, then a line break: the letter stands alone
    ("Answer: c,de", None),  # "c,de": part of a token, not a letter
    ("Answer: c,d.", None),
    ("answer is a because", None),  # "a" after "answer is" may be the article
    ("answer is c because", "C"),
    ("Answer: c' x", "C"),
    ("Answer: c'x", None),
    # a hedged leading letter is no answer, even when the second letter is lower case
    ("B or c", None),
    ("B or c\nThe macula is spared.", None),
    # bracketed leading letters, with other options discussed below
    ("(B) Retinal vein occlusion\nThe other options, A and C, are less likely.", "B"),
    ("[B] Retinal vein occlusion\nThe other options, A and C, are less likely.", "B"),
    ("(B)Retinal; C is less likely.", "B"),  # run-on after the bracket: left to step 3, which drops the rejected C (v4)
    ("(B)Retinal; C is possible.", None),  # ... and sees B and C
    ("B+ grade; C is less likely.", "B"),
    # echoed option lists, on one line or two
    ("(B) Drusen (C) Exudates", None),
    ("B) Drusen C) Exudates", None),
    ("B) Drusen C) Exudates (", None),
    ("B. Drusen C. Exudates", None),
    ("Option B: Drusen Option C: Exudates", None),
    ("A. Drusen\nB. Exudates", None),
    ("B) Drusen; see B) Findings", "B"),  # the same letter again is no echoed list
    ("B) Drusen, not C) Exudates", "B"),  # a rejected option after the answer is no echoed list
    ("B) C) Drusen", None),  # an echoed list whose first option is empty
    # a hedge inside an explicit statement: any second letter, compared case-insensitively
    ("The answer is C or A given the findings", None),  # "A given": an option letter after "answer is C or"
    ("The answer is C or d because", None),  # a lower-case second letter counts in an explicit statement
    ("The answer is C / c.", "C"),  # the same letter twice is one answer
    # only the first two lines decide a leading letter; later ones are reasoning
    ("B\nThe fundus shows drusen.\nUnlike A, it is dry.\nC and D are wet.", "B"),
    # hypothetical statements: the clause around "would be" (sentence delimiters .!?; and line breaks)
    ("Well. If anything, B looked tempting. The answer would be D.", "D"),  # the "If" is in an earlier sentence
    ("If the fluid persists on the X-ray, the answer would be D; otherwise B.", None),
    ("The answer would be D, X-rays aside, if the fluid persists; otherwise B.", None),
    ("B looked tempting\nIf the scan were wet, the answer would be D", None),
    ("The answer would be D. If B were listed, it would fit too.", "D"),  # the "If" is in the next sentence
    ("If the fluid persists the answer would be D, B otherwise", None),
    ("B was considered first\nThe answer would be D" + " and so on" * 18 + " if the fluid persists.", "D"),
]


@pytest.mark.parametrize("text, expected", CASES, ids=[re.sub(r"\W+", "_", c[0][:40]).strip("_") for c in CASES])
def test_letter_rule_edge(text, expected):
    assert parse_letter(text) == expected


@pytest.mark.parametrize("gap, expected", [(141, None), (142, None), (143, "D"), (144, "D")])
def test_the_hypothetical_check_reads_150_characters_before_the_statement(gap, expected):
    # the statement ("answer would be D") starts at 3 + gap + 5: an "If" exactly 150 characters before it is
    # read (the statement is hypothetical, B and D remain: unparseable); 151 characters before, it is not
    text = "If " + "y" * gap + " the answer would be D. B was also considered."
    assert text.index("answer would be") - 150 == gap - 142
    assert parse_letter(text) == expected


@pytest.mark.parametrize("gap, expected", [(145, None), (146, None), (147, "D"), (148, "D")])
def test_the_hypothetical_check_reads_150_characters_after_the_statement(gap, expected):
    # "if" occupies characters gap + 2 and gap + 3 after the statement's "D": read while both are within 150
    text = "B first. So the answer would be D " + "z" * gap + " if the fluid persists"
    assert text.index(" if ") + 1 - (text.index("would be D") + len("would be D")) == gap + 2
    assert parse_letter(text) == expected
