"""Deterministically (re)create the synthetic Med-CMR sample release: records and images.

Usage (from the repository root):

    .venv/bin/python benchmarks/medcmr/sample/make_sample.py

Writes, next to this script, `dataset/mcq.json` (a JSON array, indented: several lines per record),
`dataset/open_ended.jsonl` (one record per line) and `dataset/imgs/*.png` (96x96 cartoon stand-ins drawn
with PIL from a fixed seed per image, each labelled "SYNTHETIC"). Every question is fictional; no real
patient, article text or published figure was used. Re-run the script instead of editing the outputs.
"""
from __future__ import annotations

import json
import random
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
DATA = HERE / "dataset"
SIZE = 96

# (task, question type, organ system, modality, answer, question, options A-E, visual description, subtype, extra images)
MCQS = [
    ("Small-Object Detection", "Diagnosis", "Respiratory", "CT", "A",
     "A small, faint nodule is visible on this axial chest CT. In which lobe is it located?",
     ["Right upper lobe", "Right middle lobe", "Right lower lobe", "Left upper lobe", "Left lower lobe"],
     "Axial chest CT with a 4 mm ground-glass nodule in the right upper lobe.", "faint lesion localisation", 0),
    ("Small-Object Detection", "Diagnosis", "Integumentary", "Photography / Dermatology", "C",
     "Which subtle feature at the periphery of this pigmented lesion matters most for the diagnosis?",
     ["Regular pigment network", "Blue-white veil", "Irregular dots at the periphery", "Milia-like cysts",
      "Comedo-like openings"],
     "Dermoscopy of a pigmented lesion with irregular peripheral dots.", "subtle feature detection", 0),
    ("Small-Object Detection", "Procedural Risk Assessment", "Skeletal", "X-ray & Fluoroscopy", "B",
     "The hand radiograph shows a small lucent focus. Which bone holds it?",
     ["Lunate", "Scaphoid waist", "Hamate", "Capitate", "Trapezium"],
     "PA wrist radiograph with a subtle lucent line across the scaphoid waist.", "faint lesion localisation", 0),
    ("Fine-Detail Discrimination", "Diagnosis", "Digestive", "Pathology / Microscopy", "D",
     "Which nuclear feature separates the lesion shown from reactive epithelial atypia?",
     ["Uniform small nuclei", "Preserved polarity", "Abundant goblet cells", "Cribriform glands with loss of polarity",
      "Surface maturation"],
     "H&E section with cribriform glands and nuclei that have lost their polarity.", "look-alike findings", 0),
    ("Fine-Detail Discrimination", "DX", "Nervous", "Ophthalmology / Optical", "E",
     "The yellow deposits in this fundus photograph are best described as which of the following?",
     ["Soft drusen", "Cotton-wool spots", "Myelinated nerve fibres", "Asteroid hyalosis", "Hard exudates in a circinate ring"],
     "Colour fundus photograph with hard exudates in a circinate ring around the macula.", "look-alike findings", 0),
    ("Fine-Detail Discrimination", "Clinical Decision Support", "Digestive", "Endoscopy", "A",
     "Which next step fits the ulcer shown, given its regular margin and clean base?",
     ["Biopsy of the margin and acid suppression", "Immediate surgery", "No follow-up", "Radiotherapy",
      "Endoscopic mucosal resection"],
     "Endoscopy: gastric ulcer with a regular margin and a clean base.", "management-relevant detail", 0),
    ("Spatial Understanding", "Staging and Extent Evaluation", "Nervous", "MRI", "B",
     "Across the two slices, where does the lesion lie relative to the lateral ventricle?",
     ["Intraventricular", "Periventricular, abutting the frontal horn", "Cortical only", "Infratentorial",
      "Extra-axial"],
     "Two axial FLAIR slices with a periventricular lesion abutting the frontal horn.", "cross-slice alignment", 1),
    ("Spatial Understanding", "Staging and Extent Evaluation", "Digestive", "Ultrasound", "C",
     "How does the echogenic mass relate to the gallbladder wall?",
     ["Separate from the gallbladder", "Within the liver", "Arising from the wall and fixed", "Floating in bile",
      "In the common bile duct"],
     "Ultrasound with an echogenic mass arising from the gallbladder wall without acoustic shadow.", "anatomical relation", 0),
    ("Spatial Understanding", "Staging and Extent Evaluation", "Respiratory", ["CT", "Nuclear Medicine / PET"], "D",
     "On the fused PET-CT, which nodal station shows uptake?",
     ["Left supraclavicular", "Right hilar", "Aortopulmonary window", "Subcarinal", "Right paratracheal"],
     "Fused PET-CT with a single FDG-avid subcarinal lymph node.",
     "anatomical relation", 0),
    ("Temporal Prediction", "Treatment Response Evaluation", "Respiratory", "X-ray & Fluoroscopy", "E",
     "Comparing the radiograph before and after five days of antibiotics, what is the most likely course?",
     ["Rapid progression to ARDS", "Cavitation within a week", "Pleural empyema", "No change for months",
      "Gradual resolution over several weeks"],
     "Two chest radiographs: right lower lobe consolidation, smaller on the follow-up.", "disease course", 1),
    ("Temporal Prediction", "Treatment Response Evaluation", "Integumentary", "Photography / Dermatology", "A",
     "With topical therapy, how is this plaque most likely to look in four weeks?",
     ["Thinner with less scale", "Ulcerated", "Unchanged", "Spread to the whole limb", "Bullous"],
     "Clinical photograph of a scaly erythematous plaque on the elbow.", "treatment course", 0),
    ("Temporal Prediction", "Clinical Decision Support", "Cardiovascular", "Physiologic Signals", "B",
     "Which complication should monitoring anticipate after the rhythm shown?",
     ["Pericarditis", "Torsades de pointes", "Aortic dissection", "Pulmonary embolism", "Endocarditis"],
     "12-lead ECG strip with a markedly prolonged QT interval.", "prognosis", 0),
    ("Causal Reasoning", "Diagnosis", "Digestive", "CT", "C",
     "What most likely caused the bowel-wall thickening shown?",
     ["Lymphoma", "Crohn disease", "Ischaemia from arterial occlusion", "Radiation enteritis", "Diverticulitis"],
     "Contrast CT: thickened small-bowel wall with poor enhancement and an occluded mesenteric artery.",
     "mechanism", 0),
    ("Causal Reasoning", "Diagnosis", "Muscular", "MRI", "D",
     "Which cause best explains the muscle oedema pattern in this thigh MRI?",
     ["Disuse atrophy", "Lipoma", "Myositis ossificans", "Inflammatory myopathy", "Muscle contusion"],
     "STIR thigh MRI with symmetric oedema of several muscles.", "mechanism", 0),
    ("Causal Reasoning", "Diagnosis", "Urinary", "Ultrasound", "E",
     "What most likely explains the finding in the kidney?",
     ["Renal cyst", "Angiomyolipoma", "Medullary sponge kidney", "Acute pyelonephritis", "Obstructing ureteric stone"],
     "Renal ultrasound with hydronephrosis and a shadowing stone in the proximal ureter.", "multi-step cause", 0),
    ("Long-Tail Generalization", "Diagnosis", "Endocrine", "Pathology / Microscopy", "A",
     "This rare thyroid tumour with the pattern shown is most likely which of the following?",
     ["Hyalinizing trabecular tumour", "Papillary carcinoma", "Follicular adenoma", "Anaplastic carcinoma",
      "Lymphoma"],
     "H&E section with trabeculae of elongated cells and hyaline material.", "rare entity", 0),
    ("Long-Tail Generalization", "Procedural Risk Assessment", "Reproductive", "Radiotherapy", "B",
     "For this radiotherapy plan, which organ at risk needs the closest dose check?",
     ["Kidney", "Rectum", "Spinal cord", "Lung", "Parotid gland"],
     "Radiotherapy dose map centred on the prostate; the high-dose region reaches the anterior rectal wall.",
     "rare risk", 0),
    ("Long-Tail Generalization", "Psychophysiologic Analysis", "Other / NA", "Derived / Meta", "C",
     "The derived map shown summarises which measurement?",
     ["Bone density", "Cardiac output", "Regional activation during a task", "Renal clearance", "Tumour volume"],
     "Derived colour map of regional activation over a schematic head.", "rare presentation", 0),
    ("Multi-Source Integration", "Diagnosis", "Cardiovascular", "X-ray & Fluoroscopy", "D",
     "Taking all findings on this radiograph together, which diagnosis fits best?",
     ["Pneumothorax", "Lobar pneumonia", "Pericardial effusion alone", "Congestive heart failure",
      "Sarcoidosis"],
     "Chest radiograph with cardiomegaly, upper-lobe diversion, Kerley B lines and small effusions.",
     "co-existing abnormalities", 0),
    ("Multi-Source Integration", "Clinical Decision Support", "Reproductive", "Pathology / Microscopy", "E",
     "Given both findings in this cervical specimen, what should be done next?",
     ["Routine screening in 5 years", "Antibiotics only", "Repeat cytology in 3 years", "Hysterectomy at once",
      "Colposcopy with directed biopsy"],
     "Cytology with high-grade dysplastic cells and koilocytes.", "co-existing abnormalities", 0),
    ("Multi-Source Integration", None, "Nervous", "CT", "A",
     "Integrating the findings on this head CT, what is the most likely cause of the deficit?",
     ["Haemorrhagic transformation of an infarct", "Subdural empyema", "Normal-pressure hydrocephalus",
      "Glioblastoma", "Migraine"],
     "Non-contrast head CT: hypodense MCA territory with a hyperdense focus inside it.",
     "co-existing abnormalities", 0),
]

# (task abbreviation or None, organ system, modality, reference answer, question, visual description)
OPEN = [
    ("CR", "Digestive", "CT", "Hepatic haemangioma",
     "Describe the liver lesion and give the most likely diagnosis.",
     "Contrast CT with peripheral nodular enhancement of a liver lesion."),
    ("FDD", "Integumentary", "Photography / Dermatology", "Plaque psoriasis",
     "What is the most likely diagnosis of the skin lesion, and which detail supports it?",
     "Well-demarcated erythematous plaques with silvery scale."),
    (None, "Skeletal", "MRI", "Vertebral compression fracture without a soft-tissue mass",
     "What does the spine MRI show?",
     "Sagittal spine MRI: loss of height of one vertebral body with no soft-tissue mass."),
    ("TP", "Nervous", "Ophthalmology / Optical", "Proliferative diabetic retinopathy",
     "What stage of disease does this fundus photograph show, and what is likely to follow without treatment?",
     "Fundus photograph with neovascularisation at the disc and pre-retinal haemorrhage."),
]

PALETTE = {
    "CT": ((0, 0, 0), (150, 150, 150)),
    "MRI": ((10, 10, 10), (190, 190, 190)),
    "X-ray & Fluoroscopy": ((20, 20, 20), (220, 220, 220)),
    "Pathology / Microscopy": ((240, 200, 220), (110, 40, 140)),
    "Photography / Dermatology": ((225, 180, 150), (120, 70, 40)),
    "Ophthalmology / Optical": ((60, 20, 10), (220, 120, 40)),
    "Endoscopy": ((30, 10, 10), (230, 120, 120)),
    "Ultrasound": ((0, 0, 0), (170, 170, 170)),
    "Nuclear Medicine / PET": ((255, 255, 255), (20, 20, 20)),
    "Physiologic Signals": ((255, 240, 240), (30, 30, 30)),
    "Radiotherapy": ((0, 0, 0), (240, 80, 40)),
    "Derived / Meta": ((20, 20, 60), (240, 220, 60)),
}


def draw(path: Path, modality: str, seed: int) -> None:
    """A cartoon stand-in for the modality: background, body blob, a few spots, and a label."""
    rng = random.Random(seed)
    background, ink = PALETTE[modality]
    image = Image.new("RGB", (SIZE, SIZE), background)
    pen = ImageDraw.Draw(image)
    if modality == "Physiologic Signals":
        points = [(x, 48 + (rng.randint(-20, 20) if x % 16 == 8 else rng.randint(-2, 2))) for x in range(0, SIZE, 4)]
        pen.line(points, fill=ink, width=1)
    else:
        pen.ellipse((12, 16, 84, 80), outline=ink, fill=tuple(c // 2 + b // 2 for c, b in zip(ink, background)))
        for _ in range(rng.randint(2, 5)):
            x, y, r = rng.randint(24, 70), rng.randint(26, 68), rng.randint(2, 6)
            pen.ellipse((x - r, y - r, x + r, y + r), fill=ink)
    pen.text((2, SIZE - 11), "SYNTHETIC", fill=(255, 0, 0))
    image.save(path, format="PNG")


def main() -> None:
    (DATA / "imgs").mkdir(parents=True, exist_ok=True)
    records = []
    for index, (task, qtype, organ, modality, answer, question, options, description, subtype, extra) in enumerate(MCQS):
        first = modality[0] if isinstance(modality, list) else modality
        paths = [f"dataset/imgs/{index:04d}.png"] + [f"dataset/imgs/{index:04d}_{k + 2}.png" for k in range(extra)]
        for k, rel in enumerate(paths):
            draw(HERE / rel, first, seed=100 * index + k)
        record = {"index": index, "image_path": paths if extra else paths[0], "question": question,
                  **dict(zip("ABCDE", options)), "answer": answer, "visual_description": description,
                  "subtype": subtype}
        if qtype is not None:
            record["question type"] = qtype
        record.update({"Organ System": organ, "modality": modality, "task": task})
        records.append(record)
    (DATA / "mcq.json").write_text(json.dumps(records, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    lines = []
    for k, (task, organ, modality, answer, question, description) in enumerate(OPEN):
        index = len(MCQS) + k
        rel = f"dataset/imgs/{index:04d}.png"
        draw(HERE / rel, modality, seed=100 * index)
        record = {"index": index, "image_path": rel, "question": question, "answer": answer,
                  "visual_description": description, "organ_system": organ, "Modality": modality}
        if task is not None:
            record["Task"] = task
        lines.append(json.dumps(record, ensure_ascii=False))
    (DATA / "open_ended.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
