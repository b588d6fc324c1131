"""Conclusion headings (rule letters-v13): a line of its own that names what follows as the answer ("## 诊断",
"**Diagnosis**", "Final answer:"), so the text under it concludes ("## 诊断\nDDH（左侧）")."""
from __future__ import annotations

_HEADINGS = frozenset(("diagnosis", "final diagnosis", "most likely diagnosis", "answer", "final answer", "conclusion",
                       "impression", "诊断", "最终诊断", "结论", "答案", "印象", "診斷", "結論"))


def under_heading(before: str) -> bool:
    """Is the text before a mention a heading line of its own that concludes ("## Diagnosis", "**诊断**")?"""
    head = before.rstrip(" ")
    if not head.endswith("\n"):
        return False
    line = head.rstrip("\n")
    line = line[line.rfind("\n") + 1:].strip(" #*_:：").lower()
    return line in _HEADINGS
