"""Letter-rule cases that the last mutation run (issue 17) showed unpinned: each case is a response where one
guard of `leaderboard.scoring.letters._is_option_letter` / `_explicit` / `_answer_part` decides the answer, and what a
careful reader takes from it. Mutants that disable the guard read another letter (or a conflict) instead. Most
cases have no explicit statement ("so C", "pick ... C" would be one), so the guard under test decides."""
import pytest

from leaderboard.scoring import letters as letters_module
from leaderboard.scoring.letters import parse_letter

CASES = [
    # an unclosed <think> after the answer: the answer is what precedes it, not the thinking
    ("C <think> maybe B or D", "ABCDE", "C"),
    # a rejected option at the very start of the response
    ("Not A, it's C.", "ABCDE", "C"),
    # "anti-D", "B-scan": a letter joined to a word by a hyphen is part of that word
    ("Antibodies (anti-D) present; C.", "ABCDE", "C"),
    ("The B-scan shows a detachment; C.", "ABCDE", "C"),
    # "(A 45-year-old ...)": an opening bracket does not make the article an option
    ("History (A 45-year-old smoker) fits C.", "ABCDE", "C"),
    # dotted abbreviations, both letters ("B.C.", "A.D.")
    ("Per B.C. Cancer guidance, D.", "ABCDE", "D"),
    ("Since 2000 A.D., C.", "ABCDE", "C"),
    # genus abbreviations
    ("Culture grew E. coli. Pick C.", "ABCDE", "C"),
    # a letter before a bracketed gloss is the option
    ("A (retinal detachment) is most likely.", "ABCDE", "A"),
    # the pronoun "I" is no option even where I is one (ten options, A-J), also before a verb
    ("I would say retinal detachment, C.", "ABCDEFGHIJ", "C"),
    # a bare "Answer" heading followed by the article: no letter
    ("Answer\nA fundus photograph shows drusen.", "ABCDE", None),
    # a rejected explicit match does not end the search for later ones
    ("Answer: a 45-year-old with floaters. Answer: C. B is less likely.", "ABCDE", "C"),
    ("If the OCT showed fluid, the answer would be D. The answer would be B.", "ABCDE", "B"),
    # a final statement stays final when another pattern reads the same letter without "final"
    ("Final answer\nC is correct. Earlier I said the answer is B.", "ABCDE", "C"),
    # "respuesta final" (the second final group) outranks a plain statement
    ("Respuesta final: C. The answer is B.", "ABCDE", "C"),
    # a hedge revised: the revision after the hedged pair decides
    ("The answer is A or C. Wait, actually the answer is B.", "ABCDE", "B"),
    # a revision word after the last statement revises nothing: two statements, no commitment
    ("The answer is A. The answer is C. Actually, I am not sure.", "ABCDE", None),
    # "Answer: C/D" is a hedged explicit statement (only standalone "C/D ratio" pairs are exempt): it conflicts
    # with the later B (letters-v2 reads it so; a rule change would need a new rule version)
    ("Answer: C/D ratio is 0.7, so the answer is B.", "ABCDE", None),
]


@pytest.mark.parametrize("text,letters,expected", CASES, ids=[f"case{i}" for i in range(len(CASES))])
def test_guarded_letter_cases(text, letters, expected):
    assert parse_letter(text, letters) == expected


# ------------------------------------------------------------------ think tags, bounds and normalisation
HEAD, TAIL = letters_module.HEAD, letters_module.TAIL
FILLER = "Filler text here. " * ((HEAD + TAIL) // 18 + 50)  # longer than HEAD + TAIL, no letter in it

FRAME_CASES = [
    # a stray opening tag after the closed block: the answer is inside the block
    ("<think>The answer is C</think> <think> ", "C"),
    # nothing after the block: the block's own text, not the preamble before its opening tag
    ("The answer is B? <think>No, the answer is C.</think>", "C"),
    # R1-style: no opening tag, nothing after the close: everything before the close, from its first character
    ("C.</think>", "C"),
    # an opened block never closed, nothing before it: its text
    ("<think>The answer is C", "C"),
    # exactly HEAD + TAIL characters: read whole (one more and the head would be cut before " C")
    ("w" * (HEAD - 2) + " C " + "v" * (TAIL - 1), "C"),
    # longer: the head is cut at its last space, the tail starts at its first
    ("The answer is C. " + FILLER, "C"),
    (FILLER + "The answer is C, not A.", "C"),
    # a tag or struck-out text between words becomes a space, never a glued word
    ("<think>x</think>Answer: C<think>", "C"),
    ("Answer: ~~A~~C", "C"),
    # LaTeX brackets: "\(C\)" is "(C)", an explicit statement that outranks the standalone A
    ("The answer is \\(C\\), not A.", "C"),
]


@pytest.mark.parametrize("text,expected", FRAME_CASES, ids=[f"frame{i}" for i in range(len(FRAME_CASES))])
def test_think_tags_bounds_and_normalisation(text, expected):
    assert parse_letter(text) == expected
