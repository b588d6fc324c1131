import pytest

from leaderboard.scoring.letters import parse_letter


@pytest.mark.parametrize("text, expected", [
    ("C", "C"),
    ("c", "C"),
    ("(C)", "C"),
    ("The answer is (C).", "C"),
    ("Answer: B", "B"),
    ("answer: d", "D"),
    ("**B**", "B"),
    ("**Answer: E** because the lesion enhances", "E"),
    ("B. Retinal detachment, since the fundus shows a grey elevated retina.", "B"),
    ("Looking at the image, the findings suggest option D is most likely.", "D"),
    ("A or B", None),
    ("I think A, but B is also possible.", None),
    ("None of the options fit.", None),
    ("", None),
    (None, None),
    ("F", None),
    ("A 45-year-old with these findings most likely has choice C.", "C"),
    ("Answer: A", "A"),
    ("The final answer is A.", "A"),
])
def test_parse_letter(text, expected):
    assert parse_letter(text) == expected


def test_letters_can_be_restricted():
    assert parse_letter("E", letters="ABCD") is None
    assert parse_letter("Answer: D", letters="ABCD") == "D"
