"""Edges of letters-v2's precedence (leaderboard/scoring/letters.py, RULE_SUMMARY): lower-case prose openings,
capitalised words around an explicit statement, and several explicit letters together with a leading one.
Each expectation follows from the documented rule, cited next to it."""
import pytest

from leaderboard.scoring.letters import RULE_SUMMARY, parse_letter


@pytest.mark.parametrize("text, expected", [
    # lower-case prose openings are never a leading letter ("e.g.", "i.e." are words, not options)...
    ("e.g. drusen would suggest C.", "C"),            # ...so step 3 finds the one standalone capital
    ("e.g., C", "C"),
    ("i.e. the answer is B", "B"),                    # step 1 statement after the abbreviation
    ("e.g. the picture fits D best.", "D"),
    ("e.g. A or C", None),                            # two standalone letters: unparseable, not "E"
    ("i.e. nothing more", None),
    ("a. Drusen", "A"),                               # a lower-case letter before "." is an option ("c.", "d)")
    ("a 45-year-old with floaters", None),            # but never the article
])
def test_lower_case_prose_openings(text, expected):
    assert parse_letter(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("Answer: C Retinal Detachment Is Most Likely", "C"),     # title-case words after the letter are not letters
    ("Answer: A Retinal Detachment", "A"),                    # "A" right after "Answer:" is the option, not the article
    ("Final Answer: C. A Retinal Detachment Would Need B-Scan", "C"),  # "A" article, "B-Scan" a term
    ("The Most Likely Answer Is C, Not A Or B", "C"),
    ("Option B Is Less Likely. Answer: C", "C"),              # a verdict against B is no statement for B
    ("B Is Correct. Answer: C", None),                        # two statements disagree, neither final: unparseable
    ("B Is Correct. Final Answer: C", "C"),                   # a final statement outranks the others
])
def test_capitalised_words_around_an_explicit_statement(text, expected):
    assert parse_letter(text) == expected


@pytest.mark.parametrize("text, expected", [
    ("B\nAnswer: C", "C"),                                     # step 1 beats step 2
    ("B\nThe answer is A. The answer is C.", None),            # step 1 conflicts: step 2 is NOT consulted
    ("B. Drusen\nThe answer is A or C.", None),                # a hedged statement is a conflict too
    ("B\nAnswer: A\nFinal answer: C", "C"),                    # final statements decide among several
    ("D\nAnswer: A. Final answer: C", "C"),
    ("A\nFinal answer: A\nFinal answer: C", None),             # finals disagree with no self-correction
    ("A\nFinal answer: C\nActually, final answer: A", "A"),    # the last final after "actually" wins
    ("C\nAnswer: C. The answer is C.", "C"),                   # agreeing statements and leading letter
    ("E\nAnswer: D", "D"),                                     # the leading letter beyond the options is ignored
])
def test_several_explicit_letters_plus_a_leading_letter(text, expected):
    assert parse_letter(text, "ABCD") == expected


def test_the_summary_states_this_precedence():
    assert "explicit answer statement (final ones decide) > lone leading letter > single standalone" in RULE_SUMMARY
