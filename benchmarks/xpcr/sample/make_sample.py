"""Writes the synthetic X-PCR sample release in the authors' layout (run from anywhere; deterministic):

    data/test-00000-of-00002.parquet        6 images (one row per image, `qa_pairs` list)
    data/more/test-00001-of-00002.parquet   6 images (a second file one level deeper)
    cross_modal/cases.jsonl                 4 hospital-style cases (this project's layout)
    cross_modal/images/<case>/<n>.jpg       their images

and converts it to the layout the authors' README recommends, in `readme_layout/` (the same rows;
`to_readme_layout` converts any release in the Hub layout):

    readme_layout/annotations/test.json     the Parquet rows' fields, images by `image_path`
    readme_layout/images/<MOD>/...          the image bytes, at `images/<image_path>`
    readme_layout/multimodal_cases/case_NNN/case.json + images   one folder per case

Every image is a cartoon stand-in drawn here (fundus-, OCT-, angiography- and external-eye-like),
a few KB each, labelled SYNTHETIC. No real patient data, no real dataset images.
"""
from __future__ import annotations

import io
import json
import random
from pathlib import Path

import shutil
import sys

import pyarrow as pa
import pyarrow.parquet as pq
from PIL import Image, ImageDraw, ImageFilter

HERE = Path(__file__).resolve().parent
SIZE = 96


# ---------------------------------------------------------------- images
def _fundus(rng: random.Random, base=(150, 60, 20), vessel=(90, 20, 10), lesions: str = "", gray: bool = False) -> Image.Image:
    img = Image.new("RGB", (SIZE, SIZE), (0, 0, 0))
    d = ImageDraw.Draw(img)
    d.ellipse((4, 4, SIZE - 4, SIZE - 4), fill=base)
    disc = (62, 40)
    d.ellipse((disc[0] - 8, disc[1] - 8, disc[0] + 8, disc[1] + 8), fill=(240, 200, 120))
    for _ in range(6):
        x, y = rng.randint(10, 86), rng.randint(10, 86)
        d.line((disc, ((disc[0] + x) // 2, (disc[1] + y) // 2), (x, y)), fill=vessel, width=2)
    d.ellipse((30, 42, 40, 52), fill=tuple(max(c - 40, 0) for c in base))  # macula
    for _ in range(8 if lesions else 0):
        x, y = rng.randint(20, 76), rng.randint(20, 76)
        colour = {"haem": (120, 0, 0), "exud": (250, 240, 150), "drusen": (230, 210, 90), "leak": (255, 255, 255)}[lesions]
        d.ellipse((x, y, x + 3, y + 3), fill=colour)
    img = img.filter(ImageFilter.GaussianBlur(0.8))
    return img.convert("L").convert("RGB") if gray else img


def _oct(rng: random.Random, fluid: bool) -> Image.Image:
    img = Image.new("L", (SIZE, SIZE), 10)
    d = ImageDraw.Draw(img)
    for k, shade in enumerate((200, 120, 170, 90, 230)):
        y = 38 + 6 * k
        d.line([(x, y + int(6 * ((x - 48) / 48) ** 2) - (4 if 40 < x < 56 else 0)) for x in range(0, SIZE, 4)],
               fill=shade, width=3)
    if fluid:
        d.ellipse((40, 42, 58, 52), fill=15)
    for _ in range(300):
        d.point((rng.randrange(SIZE), rng.randrange(SIZE)), fill=rng.randint(0, 60))
    return img.convert("RGB")


def _external(rng: random.Random, cataract: bool) -> Image.Image:
    img = Image.new("RGB", (SIZE, SIZE), (205, 160, 130))
    d = ImageDraw.Draw(img)
    d.ellipse((10, 30, 86, 66), fill=(245, 245, 240))
    d.ellipse((34, 34, 62, 62), fill=(90, 60, 30))
    d.ellipse((42, 42, 54, 54), fill=(190, 190, 185) if cataract else (5, 5, 5))
    return img


def draw(kind: str, seed: int) -> bytes:
    rng = random.Random(seed)
    img = {
        "cfp": lambda: _fundus(rng, lesions="haem"),
        "cfp_glaucoma": lambda: _fundus(rng),
        "cfp_exud": lambda: _fundus(rng, lesions="exud"),
        "cfp_myopia": lambda: _fundus(rng, base=(200, 120, 70)),
        "oct": lambda: _oct(rng, fluid=False),
        "oct_fluid": lambda: _oct(rng, fluid=True),
        "ffa": lambda: _fundus(rng, base=(60, 60, 60), vessel=(230, 230, 230), lesions="leak", gray=True),
        "icga": lambda: _fundus(rng, base=(30, 30, 30), vessel=(150, 150, 150), lesions="leak", gray=True),
        "retcam": lambda: _fundus(rng, base=(220, 140, 90), vessel=(160, 40, 30)),
        "ep": lambda: _external(rng, cataract=False),
        "ep_cataract": lambda: _external(rng, cataract=True),
    }[kind]()
    ImageDraw.Draw(img).text((2, SIZE - 11), "SYNTHETIC", fill=(255, 255, 0))
    buffer = io.BytesIO()
    img.save(buffer, format="JPEG", quality=70)
    return buffer.getvalue()


# ---------------------------------------------------------------- questions
_CYCLE = [0]


def place(options: list[str], answer: str, at: int | None = None) -> list[str]:
    """Move the answer to position `at` (default: cycling A, B, C, ...) so every letter is a gold answer somewhere."""
    if at is None:
        at = _CYCLE[0] % len(options)
        _CYCLE[0] += 1
    rest = [o for o in options if o != answer]
    return rest[:at] + [answer] + rest[at:]


def qa(category, question, options, answer, sub_label, tier=None, qtype="single_choice", lettered=False, at=None,
       ordinal=False):
    options = options if ordinal else place(options, answer, at)
    if lettered:
        text = question + "\n" + "\n".join(f"{chr(65 + i)}. {o}" for i, o in enumerate(options))
    else:
        text = f"{question}\nOptions: {options!r}"
    assert answer in options
    return {"category": category, "question": text, "answer": answer, "sub_label": sub_label,
            "question_type": qtype, "tier": tier}


QUALITY = ["excellent", "good", "fair", "poor"]
IQA = lambda ans, tier=None: qa("Image Quality", "How would you rate the overall clarity of this image?", QUALITY, ans, "Clarity", tier, ordinal=True)  # noqa: E731

IMAGES = [
    # id, modality as released, image kind, image_path, row-level disease (or None: derived from DD), items
    ("cfp_000000", "cfp", "cfp", "CFP/12 ODIR-5K/0001_left.jpg", None, [
        IQA("good", "R"),
        qa("Anatomical Localization", "Where is the optic disc located in this fundus image?",
           ["nasal side", "temporal side", "superior arcade", "inferior periphery"], "nasal side", "Optic disc", "R"),
        qa("Anatomical Localization", "Which region shows the most haemorrhages?",
           ["macula", "optic disc", "all four quadrants", "far periphery only"], "all four quadrants", "Lesion location", "A"),
        qa("Pathological Features", "What type of haemorrhages are visible?",
           ["dot-blot haemorrhages", "flame-shaped haemorrhages", "subhyaloid haemorrhage", "vitreous haemorrhage"],
           "dot-blot haemorrhages", "Haemorrhage type", "A"),
        qa("Disease Recognition", "What is the most likely diagnosis?",
           ["diabetic retinopathy", "hypertensive retinopathy", "retinal vein occlusion", "normal fundus"],
           "diabetic retinopathy", "Diagnosis", "A"),
        qa("Severity Grading", "According to the ICDR scale, what is the severity?",
           ["no apparent retinopathy", "mild NPDR", "moderate NPDR", "severe NPDR", "proliferative DR"],
           "severe NPDR", "ICDR grade", "S", ordinal=True),
        qa("Clinical Decision", "What is the most appropriate next step?",
           ["routine rescreening in 12 months", "urgent referral to a retina specialist", "spectacle correction",
            "no follow-up needed"], "urgent referral to a retina specialist", "Referral urgency", "S"),
    ]),
    ("cfp_000001", "CFP", "cfp_glaucoma", "CFP/25 LAG/glaucoma_0017.jpg", "glaucoma", [
        IQA("excellent"),
        qa("Anatomical Localization", "Which structure is centred in this image?",
           ["optic disc", "macula", "vascular arcade", "peripheral retina"], "optic disc", "Centration"),
        qa("Lesion Characterization", "What is the cup-to-disc appearance?",
           ["enlarged cup with rim thinning", "normal cup", "disc swelling", "disc pallor without cupping"],
           "enlarged cup with rim thinning", "Cup morphology"),
        qa("Disease Diagnosis", "Is glaucomatous optic neuropathy present?", ["yes", "no"], "yes", "Presence"),
        qa("Severity Grading", "How advanced is the optic nerve damage?", ["early", "moderate", "advanced"],
           "moderate", "Severity stage"),
        qa("Clinical Decision-Making", "Which management is most appropriate?",
           ["start IOP-lowering therapy and visual field testing", "observe without testing", "cataract surgery",
            "anti-VEGF injection"], "start IOP-lowering therapy and visual field testing", "Treatment"),
    ]),
    ("cfp_000002", "cfp", "cfp_exud", "CFP/39 APTOS2019/3b018e8b7303.png", None, [
        IQA("fair", "R"),
        qa("Anatomical Localization", "Where are the hard exudates concentrated?",
           ["around the fovea", "at the disc", "in the far periphery", "none present"], "around the fovea",
           "Lesion location", lettered=True),
        qa("Disease Diagnosis", "What is the most likely diagnosis?",
           ["age-related macular degeneration", "diabetic macular edema", "central serous chorioretinopathy",
            "macular hole"], "diabetic macular edema", "Diagnosis"),
    ]),
    ("oct_000000", "OCT", "oct_fluid", "OCT/7 OCT2017/CNV-1016042-1.jpeg", "choroidal neovascularization", [
        IQA("good"),
        qa("Anatomical Localization", "Which retinal layer is disrupted?",
           ["nerve fibre layer", "RPE and Bruch membrane", "ganglion cell layer", "vitreous"],
           "RPE and Bruch membrane", "Layer"),
        qa("Lesion Characterization", "What does the hyporeflective space under the fovea represent?",
           ["subretinal fluid", "hard exudate", "epiretinal membrane", "drusen"], "subretinal fluid", "Fluid type"),
        qa("Disease Diagnosis", "What is the most likely diagnosis?",
           ["neovascular AMD with CNV", "macular hole", "vitreomacular traction", "normal macula"],
           "neovascular AMD with CNV", "Diagnosis"),
        qa("Severity Grading", "How active is the lesion?", ["inactive", "active"], "active", "Activity"),
        qa("Clinical Decision", "What is the recommended treatment?",
           ["intravitreal anti-VEGF", "laser photocoagulation of the periphery", "observation only",
            "topical steroids", "vitrectomy"], "intravitreal anti-VEGF", "Treatment", at=4),
        qa("Pathological Features", "Is intraretinal fluid present?", ["present", "absent"], "absent", "Presence"),
    ]),
    ("oct_000001", "OCT", "oct", "OCT/31 RetinalOCT/DME_0021.png", None, [
        IQA("poor"),
        qa("Anatomical Localization", "Which region is thickened?", ["fovea", "optic nerve head", "choroid only",
           "none"], "fovea", "Thickening", "R"),
        qa("Lesion Characterization", "What is the pattern of the intraretinal spaces?",
           ["cystoid spaces", "single large bubble", "drusenoid elevation", "no spaces"], "cystoid spaces",
           "Pattern"),
        qa("Disease Diagnosis", "What is the most likely differential diagnosis?",
           ["diabetic macular edema", "macular hole", "retinitis pigmentosa", "optic neuritis"],
           "diabetic macular edema", "Differential diagnosis"),
        qa("Severity Grading", "Is the edema centre-involving?", ["centre-involving", "non-centre-involving"],
           "centre-involving", "Severity"),
    ]),
    ("ffa_000000", "FFA", "ffa", "FFA/44 Retinal/brvo_late_03.jpg", "branch retinal vein occlusion", [
        IQA("good", "R"),
        qa("Anatomical Localization", "Which quadrant shows delayed venous filling?",
           ["superotemporal", "inferonasal", "nasal", "none"], "superotemporal", "Quadrant", "A"),
        qa("Lesion Characterization", "What is the late-phase finding in that quadrant?",
           ["capillary non-perfusion with leakage", "window defect", "normal filling", "choroidal flush"],
           "capillary non-perfusion with leakage", "Leakage", "A"),
        qa("Disease Diagnosis", "What is the most likely diagnosis?",
           ["branch retinal vein occlusion", "central retinal artery occlusion", "diabetic retinopathy", "uveitis"],
           "branch retinal vein occlusion", "Diagnosis", "A"),
        qa("Severity Grading", "Is the occlusion ischaemic?", ["ischaemic", "non-ischaemic"], "ischaemic",
           "Ischaemia", "S"),
        qa("Clinical Decision", "Which treatment should be considered?",
           ["sectoral laser photocoagulation", "glasses", "no treatment", "trabeculectomy"],
           "sectoral laser photocoagulation", "Treatment", "S"),
    ]),
    ("icga_000000", "ICGA", "icga", "ICGA/47 AngioPCV/pcv_0005.jpg", "polypoidal choroidal vasculopathy", [
        IQA("fair"),
        qa("Anatomical Localization", "Where are the hyperfluorescent nodules?",
           ["peripapillary", "far nasal periphery", "inferior arcade", "none"], "peripapillary", "Location"),
        qa("Lesion Characterization", "What do the nodular hyperfluorescences represent?",
           ["polyps with a branching vascular network", "drusen", "laser scars", "retinal emboli"],
           "polyps with a branching vascular network", "Morphology"),
        qa("Disease Diagnosis", "What is the diagnosis?",
           ["polypoidal choroidal vasculopathy", "central serous chorioretinopathy", "choroidal melanoma",
            "Vogt-Koyanagi-Harada disease"], "polypoidal choroidal vasculopathy", "Diagnosis"),
        qa("Severity Grading", "How extensive is the branching network?", ["small", "large"], "large", "Extent"),
        qa("Clinical Decision", "What treatment is preferred?",
           ["anti-VEGF combined with photodynamic therapy", "oral antibiotics", "observation", "cataract surgery"],
           "anti-VEGF combined with photodynamic therapy", "Treatment"),
    ]),
    ("retcam_000000", "Retcam", "retcam", "RetCam/18 RetinalROP/rop_0102.png", None, [
        IQA("good"),
        qa("Anatomical Localization", "In which zone is the vascularised/avascular border?",
           ["zone I", "zone II", "zone III"], "zone II", "Zone"),
        qa("Lesion Characterization", "What is seen at the border?",
           ["a ridge with extraretinal fibrovascular proliferation", "a flat demarcation line", "normal vessels",
            "retinal detachment"], "a ridge with extraretinal fibrovascular proliferation", "Morphology"),
        qa("Disease Diagnosis", "What is the diagnosis?",
           ["retinopathy of prematurity", "retinoblastoma", "Coats disease", "familial exudative vitreoretinopathy"],
           "retinopathy of prematurity", "Diagnosis", "S"),
        qa("Severity Grading", "What is the ROP stage?", ["stage 1", "stage 2", "stage 3", "stage 4", "stage 5"],
           "stage 3", "Staging", ordinal=True),
        qa("Clinical Decision", "What is the management?",
           ["treatment within 72 hours", "review in 4 weeks", "discharge", "glasses"], "treatment within 72 hours",
           "Referral urgency"),
    ]),
    ("ep_000000", "Ext-Eye", "ep_cataract", "EP/5 EyePhotos/cataract_044.jpg", "mature cataract", [
        IQA("good", "R"),
        qa("Anatomical Localization", "Which structure is opaque?", ["lens", "cornea", "conjunctiva", "eyelid"],
           "lens", "Structure", "R"),
        qa("Lesion Characterization", "What is the colour of the pupil reflex?", ["black", "grey-white", "red"],
           "grey-white", "Colour", "R"),
        qa("Disease Diagnosis", "What is the diagnosis?", ["mature cataract", "corneal ulcer", "pterygium",
           "conjunctivitis"], "mature cataract", "Diagnosis", "A"),
        qa("Severity Grading", "How dense is the opacity?", ["mild", "moderate", "dense"], "dense", "Grade", "A"),
        qa("Clinical Decision", "What is the recommended management?",
           ["cataract surgery", "antibiotic drops", "observation", "laser iridotomy"], "cataract surgery",
           "Treatment", "S"),
    ]),
    ("ep_000001", "Exter Eye", "ep", "EP/5 EyePhotos/normal_210.jpg", "normal", [
        IQA("excellent", "R"),
        qa("Anatomical Localization", "Which eye is shown?", ["right eye", "left eye"], "left eye", "Laterality", "R"),
    ]),
    ("cfp_000003", "cfp", "cfp_exud", "CFP/33 Harvard-GF/htr_0007.jpg", "hypertensive retinopathy", [
        IQA("good"),
        qa("Anatomical Localization", "Where are the cotton-wool spots?", ["along the arcades", "at the fovea",
           "far periphery", "on the disc"], "along the arcades", "Location"),
        qa("Lesion Characterization", "What are the white fluffy lesions?", ["cotton-wool spots", "hard exudates",
           "drusen", "myelinated fibres"], "cotton-wool spots", "Morphology"),
        qa("Disease Diagnosis", "What is the diagnosis?", ["hypertensive retinopathy", "diabetic retinopathy",
           "retinal vein occlusion", "papilloedema"], "hypertensive retinopathy", "Diagnosis"),
        qa("Severity Grading", "What is the Keith-Wagener-Barker grade?", ["grade 1", "grade 2", "grade 3",
           "grade 4"], "grade 3", "Grade"),
        qa("Clinical Decision", "What is the most important next step?", ["blood pressure control with the physician",
           "laser treatment", "cataract surgery", "observation only"], "blood pressure control with the physician",
           "Management"),
    ]),
    ("cfp_000004", "cfp", "cfp_myopia", "CFP/41 PALM/pm_0033.jpg", "pathological myopia", [
        IQA("fair"),
        qa("Anatomical Localization", "Where is the peripapillary atrophy?", ["temporal to the disc", "nasal to the disc",
           "at the fovea", "none"], "temporal to the disc", "Location"),
        qa("Lesion Characterization", "What is the fundus background pattern?", ["tessellated", "normal",
           "haemorrhagic", "pigmented"], "tessellated", "Pattern"),
        qa("Disease Diagnosis", "What is the diagnosis?", ["pathological myopia", "glaucoma", "retinitis pigmentosa",
           "choroideremia"], "pathological myopia", "Diagnosis"),
        qa("Severity Grading", "What is the META-PM category?", ["category 1", "category 2", "category 3",
           "category 4"], "category 2", "Category"),
        qa("Clinical Decision", "What follow-up is appropriate?", ["annual review with OCT", "urgent surgery",
           "no follow-up", "antibiotics"], "annual review with OCT", "Follow-up"),
    ]),
]

CASES = [
    ("XM01", 1, "54-year-old man, blurred central vision in the right eye for 3 weeks; VA 20/60.",
     "central serous chorioretinopathy", "Rare", [("cfp", "CFP", "CFP"), ("oct_fluid", "OCT", "OCT")], [
         ("Correspondence Identification", "The macular elevation on CFP corresponds to which OCT finding?",
          ["serous retinal detachment", "epiretinal membrane", "macular hole", "drusen"], "serous retinal detachment", "A"),
         ("Diagnostic Integration", "Combining CFP and OCT, what is the most likely diagnosis?",
          ["central serous chorioretinopathy", "neovascular AMD", "diabetic macular edema", "macular hole"],
          "central serous chorioretinopathy", "A"),
     ]),
    ("XM02", 2, "67-year-old diabetic woman, gradual vision loss in both eyes; VA 20/80.",
     "diabetic macular edema", "DR",
     [("cfp_exud", "CFP", "CFP"), ("oct", "OCT", "OCT"), ("ffa", "FFA", "A-FFA"), ("ffa", "FFA", "L-FFA")], [
         ("Correspondence Identification", "The hard exudates on CFP correspond to which FFA finding?",
          ["late leakage from microaneurysms", "window defect", "blocked fluorescence from blood", "normal filling"],
          "late leakage from microaneurysms", "A"),
         ("Diagnostic Integration", "What is the diagnosis?", ["diabetic macular edema", "CRVO", "uveitis",
          "normal"], "diabetic macular edema", "A"),
         ("Modality Selection", "Which test best monitors the response to treatment?", ["OCT", "ICGA", "B-scan",
          "visual fields"], "OCT", "R"),
     ]),
    ("XM03", 3, "61-year-old man, sudden metamorphopsia; VA 20/100; orange subretinal nodules.",
     "polypoidal choroidal vasculopathy", None,
     [("cfp", "CFP", "CFP"), ("oct_fluid", "OCT", "OCT"), ("ffa", "FFA", "FFA"), ("icga", "ICGA", "ICGA")], [
         ("Diagnostic Integration", "What is the most likely diagnosis?",
          ["polypoidal choroidal vasculopathy", "typical neovascular AMD", "central serous chorioretinopathy",
           "choroidal haemangioma"], "polypoidal choroidal vasculopathy", "S"),
         ("Modality Selection", "Which modality confirms the diagnosis?", ["ICGA", "FFA", "OCT", "CFP"], "ICGA", "S"),
     ]),
    ("XM04", 4, "72-year-old woman, progressive painless vision loss; dense lens opacity; VA hand motion.",
     "mature cataract with diabetic retinopathy", "CAT",
     [("cfp", "CFP", "CFP"), ("oct", "OCT", "OCT"), ("ffa", "FFA", "FFA"), ("ep_cataract", "EP", "EP")], [
         ("Diagnostic Integration", "What explains the poor fundus view?", ["dense cataract", "vitreous haemorrhage",
          "corneal scar", "small pupil only"], "dense cataract", "R"),
         ("Modality Selection", "Which examination best assesses the retina before surgery?",
          ["OCT through the clearest window", "ICGA", "external photography", "tonometry"],
          "OCT through the clearest window", "A"),
     ]),
]


def image_struct(kind: str, seed: int, path: str) -> dict:
    return {"bytes": draw(kind, seed), "path": Path(path).name}


def write_parquet(rows: list[dict], path: Path) -> None:
    qa_type = pa.struct([("category", pa.string()), ("question", pa.string()), ("answer", pa.string()),
                         ("sub_label", pa.string()), ("question_type", pa.string()), ("tier", pa.string())])
    schema = pa.schema([("id", pa.string()), ("modality", pa.string()),
                        ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
                        ("image_path", pa.string()), ("disease", pa.string()), ("qa_pairs", pa.list_(qa_type))])
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path, compression="snappy")


def main() -> None:
    rows = []
    for n, (image_id, modality, kind, image_path, disease, items) in enumerate(IMAGES):
        rows.append({"id": image_id, "modality": modality, "image": image_struct(kind, n, image_path),
                     "image_path": image_path, "disease": disease, "qa_pairs": items})
    write_parquet(rows[:6], HERE / "data" / "test-00000-of-00002.parquet")
    write_parquet(rows[6:], HERE / "data" / "more" / "test-00001-of-00002.parquet")
    folder = HERE / "cross_modal"
    lines = []
    for c, (case_id, group, vignette, disease, category, images, items) in enumerate(CASES):
        entries = []
        for k, (kind, modality, label) in enumerate(images, start=1):
            rel = f"images/{case_id}/{k}.jpg"
            (folder / rel).parent.mkdir(parents=True, exist_ok=True)
            (folder / rel).write_bytes(draw(kind, 100 + 10 * c + k))
            entries.append({"path": rel, "modality": modality, "label": label})
        record = {"case_id": case_id, "case_group": group, "vignette": vignette, "disease": disease,
                  "images": entries,
                  "items": [{"task_family": family, "question": f"{question}\nOptions: {place(options, answer)!r}", "answer": answer,
                             "tier": tier, "question_type": "single_choice"}
                            for family, question, options, answer, tier in items]}
        if category:
            record["disease_category"] = category
        lines.append(json.dumps(record, ensure_ascii=False))
    (folder / "cases.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    to_readme_layout(HERE, HERE / "readme_layout")


SPLITS = ("train", "validation", "val", "test")


def to_readme_layout(release: Path, out: Path) -> None:
    """A Hub-layout release (Parquet files at any depth, optional `cross_modal/cases.jsonl`) -> the README
    layout in `out` (replaced). Parquet files are read in the builder's order (sorted paths) and go to
    `annotations/<split>.json` by their name's prefix (`test` when none); each image is written to
    `images/<image_path>`, so the record needs no `image` field."""
    shutil.rmtree(out, ignore_errors=True)
    annotations: dict[str, list[dict]] = {}
    for path in sorted(p for p in release.rglob("*.parquet") if out not in p.parents):
        split = next((s for s in SPLITS if path.name.startswith(s)), "test")
        split = "val" if split == "validation" else split
        for row in pq.read_table(path).to_pylist():
            image = row.pop("image") or {}
            target = out / "images" / row["image_path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(image["bytes"])
            annotations.setdefault(split, []).append(row)
    (out / "annotations").mkdir(parents=True)
    for split, records in annotations.items():
        text = json.dumps(records, ensure_ascii=False, indent=1)
        (out / "annotations" / f"{split}.json").write_text(text + "\n", encoding="utf-8")
    cases = release / "cross_modal" / "cases.jsonl"
    lines = cases.read_text(encoding="utf-8").splitlines() if cases.is_file() else []
    for n, line in enumerate((line for line in lines if line.strip()), start=1):
        record = json.loads(line)
        folder = out / "multimodal_cases" / f"case_{n:03d}"
        folder.mkdir(parents=True)
        for entry in record["images"]:
            name = Path(entry["path"]).name
            shutil.copyfile(cases.parent / entry["path"], folder / name)
            entry["path"] = name
        (folder / "case.json").write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--convert"]:  # make_sample.py --convert HUB_RELEASE OUT
        to_readme_layout(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        main()
