"""MedReaMM facts shared by the builder and the scorer, kept free of heavy imports (no `datasets`)."""
from __future__ import annotations

BIBTEX = """@article{chen2026medreamm,
  title   = {MedReaMM: Evaluating Large Multimodal Models on Expert-Level Clinical Diagnostic Synthesis},
  author  = {Chen, Yuchao and Cao, Zhenbiao and Zhang, Xiaojin and Wei, Zhongyu and Wang, Bangting and Chen, Wei and Bai, Xiang},
  journal = {arXiv preprint arXiv:2608.22323},
  year    = {2026}
}"""


def image_count_bin(n: int) -> str:
    """Table 5's buckets: 1, 2, 3, 4, 5-10."""
    return str(n) if n < 5 else "5-10"
