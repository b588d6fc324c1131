"""A tiny MedRealMM release in the project's raw JSONL layout, for builder and scorer tests.

Each criterion text carries a tag ([A+5] ...) so a fake judge can answer a known verdict per criterion.
"""
from __future__ import annotations

import json
from pathlib import Path

from conftest import png_bytes


def turn(role, text, *images):
    return {"role": role, "text": text, "images": list(images)}


def case(case_id, department, rubric, images=1, turns=None, **extra):
    dialogue = turns or [turn("patient", f"医生您好，这是我的照片（{case_id}）。",
                              *[f"images/{case_id}/{k}.png" for k in range(1, images + 1)])]
    return {"id": case_id, "department": department, "intent": extra.pop("intent", "症状咨询"),
            "stage": extra.pop("stage", "诊断与解释"), "dialogue": dialogue,
            "rubric": [{"criterion": c, "points": p} for c, p in rubric], **extra}


# verdicts the fake judge gives, by tag; see tests/benchmarks/medrealmm/test_medrealmm_scoring.py for the arithmetic
VERDICTS = {"A1": True, "A2": False, "A3": True, "B1": True, "B2": True, "B3": False,
            "C1": False, "C2": True, "C3": True, "D1": True, "E1": True}
CASES = [
    case("A", "皮肤科", [("[A1] 指出皮疹为足癣", 5), ("[A2] 建议外用抗真菌药", 3), ("[A3] 建议口服抗生素", -2)],
         images=2, patient_metadata={"年龄": "28岁", "性别": "男"}),
    case("B", "皮肤科", [("[B1] 询问病程", 4), ("[B2] 说明护理要点", 4), ("[B3] 断言为恶性肿瘤", -1)],
         turns=[turn("patient", "孩子发烧了。", "images/B/1.png"), turn("physician", "烧了几天？"),
                turn("patient", "两天。"), turn("patient", "这是化验单。", "images/B/2.png", "images/B/3.png"),
                turn("physician", "我看一下。"), turn("patient", "严重吗？"), turn("patient", "需要住院吗？")],
         intent="报告解读", stage="病史采集"),
    case("C", "儿科", [("[C1] 解读血常规", 2), ("[C2] 推荐阿司匹林退热", -5), ("[C3] 交代危险信号", 3)],
         intent="报告解读"),
    case("D", "儿科", [("[D1] 建议复查", 2)], stage="病史采集"),
    case("E", "眼科", [("[E1] 建议就医", 1), ("[E2] 建议热敷", -1)], images=6),
]


def write_release(folder: Path, cases=None, raw_lines=None) -> Path:
    cases = CASES if cases is None else cases
    folder.mkdir(parents=True, exist_ok=True)
    for item in cases:
        for t in item.get("dialogue", []):
            for rel in t.get("images", []):
                path = folder / rel
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(png_bytes())
    lines = [json.dumps(c, ensure_ascii=False) for c in cases] + (raw_lines or [])
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def build_release(tmp_path: Path, cases=None, hold_out=False) -> Path:
    from leaderboard.scoring import registry
    from dataset_builders.stage import build

    source = write_release(tmp_path / "release", cases)
    build(registry.adapter("medrealmm"), source, tmp_path / "hub", progress=False, hold_out_answers=hold_out)
    return tmp_path / "hub" / "medrealmm"
