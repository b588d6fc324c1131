"""A Chinese yes or no answers a yes/no item (rule letters-v11): "是的，存在青光眼性视神经病变。" answers "yes", "否。",
"不是", "没有" answer "no"; so do "Present." and "Not present." Read only when the response's first clause is the
word alone (up to the first punctuation mark or the end): "是" inside a sentence ("这是一张CT图像") is a copula, not an
answer.
"""
from __future__ import annotations

from typing import Sequence

_YES = frozenset(("是", "是的", "对", "对的", "有", "存在", "阳性", "正确"))
_NO = frozenset(("否", "不是", "不", "没有", "无", "不存在", "阴性", "不对", "未见"))
# English, the whole first clause: "Present." on "Is X present?" (the question names X; the response need not)
_YES_EN = frozenset(("yes", "present", "it is present", "it's present", "positive", "it is", "yes it is"))
_NO_EN = frozenset(("no", "absent", "not present", "it is not present", "it's not present", "it is absent", "negative",
                    "it is not", "no it is not"))
_YES_OPTIONS = frozenset(("yes", "y", "true", "是", "有"))
_NO_OPTIONS = frozenset(("no", "n", "false", "否", "无"))
_BREAKS = "，。,.!！；;:：\n "


def yes_no_option(source: str, options: Sequence[str]) -> int | None:
    """The index of the yes (or no) option the response's opening Chinese word answers, when the options hold
    exactly one of each; else None."""
    # the option's first word: "Yes, abnormal findings are present" is the yes option (letters-v11)
    words = [(o or "").strip().strip(".").casefold().replace(",", " ").split(" ", 1)[0] for o in options]
    yes = [k for k, w in enumerate(words) if w in _YES_OPTIONS]
    no = [k for k, w in enumerate(words) if w in _NO_OPTIONS]
    if len(yes) != 1 or len(no) != 1:
        return None
    text = source.strip()
    end = next((k for k, ch in enumerate(text) if ch in _BREAKS), len(text))
    first = text[:end]
    clause = text[:next((k for k, ch in enumerate(text) if ch in _BREAKS[:-1]), len(text))].casefold()
    clause = clause.replace("’", "'")
    if first in _YES or clause in _YES_EN:
        return yes[0]
    if first in _NO or clause in _NO_EN:
        return no[0]
    return None
