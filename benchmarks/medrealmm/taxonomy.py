"""MedRealMM facts shared by the builder and the scorer, kept free of heavy imports (no `datasets`)."""
from __future__ import annotations

BIBTEX = """@article{shi2026medrealmm,
  title   = {MedRealMM: A Real-World Multimodal Benchmark for Chinese Online Medical Consultation},
  author  = {Shi and others},
  journal = {arXiv preprint arXiv:2607.09142},
  year    = {2026}
}"""

ROLES = {"patient": "patient", "physician": "physician", "doctor": "physician", "患者": "patient",
         "医生": "physician", "user": "patient", "assistant": "physician"}
ROLE_ZH = {"patient": "患者", "physician": "医生"}

# Bins for the stratified view (the paper's Fig. 11 edges are not given). Images: 1-10 per case, most
# cases have few; turns: context up to the challenge point, ~7 on average (whole dialogues have 5-30).
IMAGE_BINS = ((1, 1, "1"), (2, 2, "2"), (3, 3, "3"), (4, 5, "4-5"), (6, None, "6-10"))
TURN_BINS = ((1, 3, "1-3"), (4, 6, "4-6"), (7, 9, "7-9"), (10, 14, "10-14"), (15, None, "15+"))


def _bin(n: int | None, bins) -> str | None:
    if n is None:
        return None
    for low, high, label in bins:
        if n >= low and (high is None or n <= high):
            return label
    return None


def image_count_bin(n: int | None) -> str | None:
    """1, 2, 3, 4-5, 6-10 images in the context."""
    return _bin(n, IMAGE_BINS)


def turn_count_bin(n: int | None) -> str | None:
    """1-3, 4-6, 7-9, 10-14, 15+ messages in the context."""
    return _bin(n, TURN_BINS)
