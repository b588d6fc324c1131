"""ClinMM-Bench facts shared by the builder, the fact extractor and the scorer (no heavy imports).

The turn texts are this project's decision (the paper does not publish its inference prompts):
case presentation, then one turn per image (the image and its `image_type` only, never
`image_finding` or `diagnostic_significance`), then a final turn asking for diagnosis and reasoning.
"""
from __future__ import annotations

# The paper's eight specialties, in its Table order (case counts of the full benchmark).
SPECIALTIES = {
    "Radiology": 679,
    "Oncology": 114,
    "Neurology": 98,
    "Dermatology": 63,
    "Ophthalmology": 60,
    "Nephrology": 29,
    "Emergency Medicine": 23,
    "Internal Medicine": 23,
}
SPECIALTY_BY_KEY = {name.lower().replace(" ", "").replace("_", ""): name for name in SPECIALTIES}

PRESENTATION_FIELDS = ("demographic_information", "chief_complaint", "history_of_present_illness",
                       "lab_result", "physical_examination")

SIDECAR = "reference_facts.jsonl"

BIBTEX = """@article{yang2026clinmm,
  title   = {Evaluating Multi-Turn Multimodal Diagnostic Reasoning on Challenging Real-World Clinical Cases},
  author  = {Yang, Rui and others},
  journal = {arXiv preprint arXiv:2607.25933},
  year    = {2026}
}"""

LABELS = {
    "en": {
        "demographic_information": "Demographic information",
        "chief_complaint": "Chief complaint",
        "history_of_present_illness": "History of present illness",
        "lab_result": "Laboratory results",
        "physical_examination": "Examinations performed",
        "missing": "Not reported",
        "title": "Case presentation",
    },
    "zh": {
        "demographic_information": "人口学信息",
        "chief_complaint": "主诉",
        "history_of_present_illness": "现病史",
        "lab_result": "实验室检查结果",
        "physical_examination": "已进行的检查",
        "missing": "未报告",
        "title": "病例介绍",
    },
}
PRESENTATION_QUESTION = {
    "en": "What is your initial assessment? Give your current leading diagnosis and main differentials.",
    "zh": "你的初步判断是什么？请给出目前最可能的诊断及主要鉴别诊断。",
}
IMAGE_TURN = {
    "en": ("New image ({k} of {n}): {image_type}.\n"
           "Interpret this image together with everything disclosed so far and update your leading diagnosis."),
    "zh": "新图像（第 {k} 张，共 {n} 张）：{image_type}。\n请结合目前已提供的全部信息解读该图像，并更新你最可能的诊断。",
}
FINAL_TURN = {
    "en": ("All information has now been disclosed. Give your final diagnosis and your diagnostic reasoning, "
           "in this format:\nFinal diagnosis: <one diagnosis>\nReasoning: <how the clinical findings and each "
           "image support or rule out the differential diagnoses>"),
    "zh": ("所有信息均已提供。请按以下格式给出最终诊断及诊断推理过程：\n最终诊断：<一个诊断>\n"
           "推理：<临床表现及每张图像如何支持或排除各鉴别诊断>"),
}


def normalise_specialty(value: str) -> str | None:
    return SPECIALTY_BY_KEY.get(value.lower().replace(" ", "").replace("_", "").replace("-", ""))


def presentation_text(fields: dict[str, str | None], lang: str) -> str:
    labels = LABELS[lang]
    lines = [labels["title"]]
    lines += [f"{labels[name]}: {fields.get(name) or labels['missing']}" for name in PRESENTATION_FIELDS]
    return "\n".join(lines) + "\n\n" + PRESENTATION_QUESTION[lang]


def turn_texts(presentation: dict[str, str | None], image_types: list[str], lang: str) -> list[str]:
    """Text of every turn: presentation, one per image (type only), final question."""
    n = len(image_types)
    texts = [presentation_text(presentation, lang)]
    texts += [IMAGE_TURN[lang].format(k=k, n=n, image_type=t) for k, t in enumerate(image_types, start=1)]
    texts.append(FINAL_TURN[lang])
    return texts


def is_non_commercial(license_text: str | None) -> bool:
    text = (license_text or "").upper().replace("_", "-")
    return "NC" in text.replace("-", " ").split() or "-NC" in text or "NON-COMMERCIAL" in text \
        or "NONCOMMERCIAL" in text
