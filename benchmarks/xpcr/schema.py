"""X-PCR's rebuilt Hub schema (four configs) and the card text that documents how rows are derived."""
from __future__ import annotations

from datasets import Features, Image, List, Value

_ITEM_TEXT = {  # what every question carries, in chains and cross-modal cases alike
    "question": Value("string"),
    "options": List(Value("string")),
    "tier": Value("string"),
    "tier_source": Value("string"),
    "sub_label": Value("string"),
    "question_type": Value("string"),
}
CHAIN_ITEM = {"item_id": Value("string"), "stage": Value("string"), "stage_idx": Value("int8"), **_ITEM_TEXT,
              "source_category": Value("string")}
CROSS_ITEM = {"item_id": Value("string"), "task_family": Value("string"), "stage": Value("string"), **_ITEM_TEXT}
CHAINS = Features({
    "id": Value("string"),
    "image": Image(),
    "modality": Value("string"),
    "image_path": Value("string"),
    "sha256": Value("string"),
    "source_dataset": Value("string"),
    "disease": Value("string"),
    "disease_category": Value("string"),
    "disease_source": Value("string"),
    "stages": List(Value("string")),
    "has_all_stages": Value("bool"),
    "num_items": Value("int32"),
    "items": List(CHAIN_ITEM),
    "answers": List(Value("string")),
})
CROSS_MODAL = Features({
    "id": Value("string"),
    "case_group": Value("int8"),
    "group_modalities": Value("string"),
    "vignette": Value("string"),
    "images": List(Image()),
    "image_modalities": List(Value("string")),
    "image_labels": List(Value("string")),
    "image_paths": List(Value("string")),
    "image_sha256": List(Value("string")),
    "disease": Value("string"),
    "disease_category": Value("string"),
    "num_items": Value("int32"),
    "items": List(CROSS_ITEM),
    "answers": List(Value("string")),
})
ITEMS = Features({
    "id": Value("string"),
    "task": Value("string"),
    "parent_id": Value("string"),
    "position": Value("int32"),
    "stage": Value("string"),
    "tier": Value("string"),
    "modality": Value("string"),
    "case_group": Value("int8"),
    "task_family": Value("string"),
    "source_dataset": Value("string"),
    "disease": Value("string"),
    "disease_category": Value("string"),
    "n_options": Value("int8"),
    "options": List(Value("string")),  # the option texts: the letter rule reads answers that restate one
    "answer": Value("string"),
})
ABLATIONS = Features({
    "id": Value("string"),
    "item_id": Value("string"),
    "parent_id": Value("string"),
    "case_group": Value("int8"),
    "removed_modality": Value("string"),
    "task_family": Value("string"),
    "tier": Value("string"),
    "n_options": Value("int8"),
    "options": List(Value("string")),  # the option texts: the letter rule reads answers that restate one
    "answer": Value("string"),
})

BIBTEX = """@inproceedings{wang2026xpcr,
  title     = {X-PCR: A Benchmark for Cross-modality Progressive Clinical Reasoning in Ophthalmic Diagnosis},
  author    = {Wang and others},
  booktitle = {Proceedings of the IEEE/CVF Conference on Computer Vision and Pattern Recognition (CVPR)},
  year      = {2026},
  note      = {arXiv:2604.20350}
}"""

TIER_RULE = (
    "Tier (R/A/S) comes from the release when an item has a tier field (`tier`, `difficulty`, `level`, `expertise`); "
    "otherwise (`tier_source` = `mapped`) from this project's mapping: a sub-label keyword decides first (S: "
    "differential, subtype, etiology, prognosis, surgery, referral; A: artifact, gradability, distribution, pattern, "
    "morphology, severity, grade, staging; R: clarity, focus, illumination, exposure, laterality, presence, "
    "visibility), else the stage's majority tier in the paper's Figure 2(f): IQA R, AL R, LC R, DD A, SG A, CD S."
)
DISEASE_RULE = (
    "Disease and disease category come from the row when the release has them (`disease_source` = `release`); "
    "otherwise the disease is the answer text of the image's first Disease Diagnosis item that names a disease "
    "(not yes/no; a sub-label with 'diagnos'/'disease' preferred; `disease_source` = `dd_answer`) and the category "
    "follows keywords (diabetic -> DR, vein occlusion -> RVO, hypertensive -> HTR, glaucoma -> GLA, cataract -> CAT, "
    "macular degeneration/drusen/CNV -> AMD, myopia -> PM, 'normal' -> none, anything else -> Rare)."
)
CROSS_MODAL_LAYOUT = (
    "Hospital cases are read from `cross_modal/cases.jsonl` (this project's layout; the authors' is unpublished): one "
    "JSON object per line with `case_id`, optional `case_group` (1 CFP/OCT, 2 CFP/OCT/FFA, 3 CFP/OCT/FFA/ICGA, "
    "4 CFP/OCT/FFA/EP; derived from the image modalities when absent, and checked against them when present), "
    "optional `vignette`, `disease`, `disease_category`, `task_family` (case default), `images` = [{`path` relative "
    "to `cross_modal/`, `modality`, optional `label` such as 'L-FFA'}] and `items` = [{`question` (options appended "
    "as in the public release, or an `options` list), `answer` (option text or letter), optional `task_family` "
    "(Correspondence Identification, Diagnostic Integration, Modality Selection), `tier`, `stage`, `sub_label`, "
    "`question_type`}]. Item ids are `<case_id>-<k>`; each item also gets one ablation id per modality of its group, "
    "`<item id>/without-<MODALITY>`. The authors' README layout is read too: `annotations/*.json` (records with the "
    "Hub rows' fields, images under `images/` by their `image_path`) and one folder per hospital case, "
    "`multimodal_cases/case_NNN/` holding `case.json` (a `cases.jsonl` record; paths relative to the folder)."
)
FIELD_DOCS = {
    "id": "Row id: the image id (`chains`), case id (`cross_modal`), item id (`items`) or ablation id (`ablations`).",
    "image": "The image, original bytes, stored once per image (not per question). Model input.",
    "modality": "CFP, OCT, FFA, ICGA, RetCam or EP (aliases such as 'cfp', 'Ext-Eye', 'Retcam' normalised).",
    "image_path": "The authors' `image_path` (provenance; encodes the source dataset).",
    "sha256": "SHA-256 of the image bytes.",
    "source_dataset": "Public source dataset, from the image path ('CFP/12 ODIR-5K/...' -> 'ODIR-5K').",
    "disease": "Disease of the image. May reveal Disease Diagnosis answers; held out with the answers. " + DISEASE_RULE,
    "disease_category": "DR, GLA, CAT, AMD, HTR, PM, RVO or Rare (null for normal images). Held out with the answers.",
    "disease_source": "`release` or `dd_answer` (derived, see `disease`).",
    "stages": "Stages present among the image's items, in progressive order.",
    "has_all_stages": "True when the image has items of all six stages: its chain counts in the chain completion rate.",
    "num_items": "Number of items.",
    "items": "The questions, in release order: `item_id` (`<image id>-<k>`, k = 1-based position in `qa_pairs`), "
             "`stage` (IQA, AL, LC, DD, SG, CD) and `stage_idx` (1-6), `question` (options removed), `options` "
             "(letters A, B, ... in list order), `tier` and `tier_source` (`release`/`mapped`), `sub_label`, "
             "`question_type`, `source_category` (the release's category string). " + TIER_RULE,
    "answers": "Gold option letter of each item, aligned with `items` (the option text is `options[ord(letter) - 65]`).",
}
