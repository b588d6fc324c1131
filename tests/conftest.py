"""Shared fixtures: a tiny MedReaMM release written in the authors' raw format."""
from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

ROOT = Path(__file__).resolve().parent.parent
SAMPLE_MEDREAMM = ROOT / "benchmarks" / "medreamm" / "sample"


def png_bytes(colour=(200, 30, 30), size=(32, 24), mode="RGB") -> bytes:
    buffer = io.BytesIO()
    Image.new(mode, size, colour if mode != "L" else 128).save(buffer, format="PNG")
    return buffer.getvalue()


def raw_case(pmid: str, diagnoses: list[tuple[str, str | None, bool]], n_images: int = 1, **extra) -> dict:
    return {
        "pmid": pmid,
        "patient_info": {
            "basic_info": f"Record of case {pmid}: a patient with fever and cough.",
            "supplementary_info": [
                {"caption": f"Axial CT, image {k}", "path": [f"images/{pmid}/{k}.png"], "image_type": "CT"}
                for k in range(1, n_images + 1)
            ],
            "standardized_diagnosis": [
                {"original_term": term, "code": code, "primary": primary} for term, code, primary in diagnoses
            ],
        },
        "classification": extra.pop("classification", "Infectious"),
        **extra,
    }


def write_release(folder: Path, cases: list[dict], name: str = "cases.jsonl", raw_lines: list[str] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    for case in cases:
        for entry in case["patient_info"]["supplementary_info"]:
            path = folder / entry["path"][0]
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(png_bytes())
    lines = [json.dumps(c) for c in cases] + (raw_lines or [])
    (folder / name).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


TINY_CASES = [
    raw_case("100", [("Cholera", "1A00", True), ("Dehydration", "5C70.0", False)], n_images=2, year=2024,
             rare_disease=False, source_type="journal", source_name="NEJM"),
    raw_case("200", [("Pneumonia", "CA40", True)], n_images=1, year=2025, rare_disease=True, source_type="web",
             classification="Respiratory"),
    raw_case("300", [("Asthma", "CA23", True), ("Essential hypertension", "BA00", False), ("Obesity", None, False)],
             n_images=3, year=2025, classification="Respiratory"),
]


@pytest.fixture
def tiny_release(tmp_path) -> Path:
    return write_release(tmp_path / "release", TINY_CASES)


@pytest.fixture
def tiny_built(tmp_path, tiny_release) -> Path:
    from leaderboard.scoring import registry
    from dataset_builders.stage import build

    build(registry.adapter("medreamm"), tiny_release, tmp_path / "hub", progress=False)
    return tmp_path / "hub" / "medreamm"
