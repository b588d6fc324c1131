"""Deterministically (re)create the synthetic ClinMM-Bench sample release: case files and images.

Usage (from the repository root):

    .venv/bin/python benchmarks/clinmm/sample/make_sample.py

Writes, next to this script, `cases/<case_id>.json` (the paper's conversion JSON plus provenance keys and
frozen `reference_facts`) and `images/<case_id>/*.png` (64x64 cartoon stand-ins drawn with PIL from a
fixed seed per image, each labelled "SYN"). Every case is fictional; PMIDs/PMCIDs are placeholders with
leading zeros (real ones have none). No real patient, article text or published figure was used.
Re-run the script instead of editing the outputs.
"""
from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

from PIL import Image, ImageDraw

HERE = Path(__file__).resolve().parent
SIZE = 64


def presentation(demo, cc, hpi, lab, exam):
    return {"demographic_information": demo, "chief_complaint": cc, "history_of_present_illness": hpi,
            "lab_result": lab, "physical_examination": exam}


# Each case: id, specialty, license, qc, English + Chinese presentation, images
# [(id, type_en, finding_en, significance_en, type_zh, finding_zh, significance_zh)], diagnosis en/zh,
# reasoning en/zh, reference facts.
CASES = [
    dict(
        case_id="clinmm-s001", specialty="Neurology", license="CC BY 4.0", qc=5,
        en=presentation("34-year-old woman, forestry worker", "Fever followed by confusion for 5 days",
                        "Flu-like illness two weeks ago that resolved, then new fever, headache and confusion. She "
                        "recalls a tick bite on the leg about three weeks before onset.",
                        "CSF: 85 white cells/uL, 90% lymphocytes; protein 0.9 g/L; glucose normal.",
                        "Neurological examination; lumbar puncture; brain MRI performed."),
        zh=presentation("34岁女性，林业工人", "发热后意识模糊5天",
                        "两周前出现流感样症状后好转，随后再次发热、头痛并出现意识模糊。发病前约三周腿部曾被蜱虫叮咬。",
                        "脑脊液：白细胞85/uL，淋巴细胞占90%；蛋白0.9 g/L；葡萄糖正常。",
                        "进行了神经系统检查、腰椎穿刺及头颅MRI检查。"),
        images=[("Figure 1A", "Axial brain MRI (FLAIR)", "Bilateral symmetric thalamic hyperintensity",
                 "Supports viral encephalitis with thalamic involvement", "头颅轴位MRI（FLAIR）", "双侧丘脑对称性高信号",
                 "支持累及丘脑的病毒性脑炎"),
                ("Figure 1B", "Axial brain MRI (diffusion-weighted)", "No restricted diffusion in the white matter",
                 "Argues against acute demyelination", "头颅轴位MRI（弥散加权）", "白质未见弥散受限", "不支持急性脱髓鞘")],
        dx=("Tick-borne encephalitis", "蜱传脑炎"),
        reasoning=("The biphasic illness after a tick bite, lymphocytic CSF pleocytosis and bilateral thalamic FLAIR "
                   "lesions suggested tick-borne encephalitis. Acute disseminated encephalomyelitis was considered "
                   "less likely because the white matter showed no lesions. Serum TBEV IgM was positive.",
                   "蜱虫叮咬后的双相病程、脑脊液淋巴细胞增多及双侧丘脑FLAIR病灶提示蜱传脑炎。白质无病灶，故急性播散性脑脊髓炎可能性较小。"
                   "血清TBEV IgM阳性。"),
        facts=["Patient had a tick bite three weeks before onset", "Illness course is biphasic",
               "CSF shows lymphocytic pleocytosis", "Brain MRI shows bilateral thalamic FLAIR hyperintensity",
               "White matter shows no lesions", "Serum TBEV IgM is positive",
               "Acute disseminated encephalomyelitis is less likely"],
    ),
    dict(
        case_id="clinmm-s002", specialty="Dermatology", license="CC BY-NC 4.0", qc=4,
        en=presentation("52-year-old man", "Thickened yellow fingernail for two years",
                        "Slowly progressive thickening and yellow discolouration of the left thumbnail without pain "
                        "or bleeding. No history of trauma.", "",
                        "Nail inspection; dermoscopy; nail matrix biopsy performed."),
        zh=presentation("52岁男性", "指甲增厚发黄两年",
                        "左拇指甲缓慢进行性增厚伴黄色变色，无疼痛或出血。无外伤史。", "",
                        "进行了指甲检查、皮肤镜检查及甲母质活检。"),
        images=[("Figure 1", "Clinical photograph of the nail", "Yellow longitudinal band with transverse overcurvature",
                 "Typical clinical pattern of a nail matrix tumour", "指甲临床照片", "黄色纵带伴横向过度弯曲",
                 "甲母质肿瘤的典型临床表现"),
                ("Figure 2", "Nail dermoscopy", "Parallel white lines and free-edge pitting, no pigment",
                 "Argues against melanoma", "指甲皮肤镜", "平行白线及游离缘点状凹陷，无色素", "不支持黑色素瘤"),
                ("Figure 3", "Histopathology (H&E)", "Fibroepithelial tumour with finger-like projections",
                 "Confirms onychomatricoma", "组织病理（HE染色）", "纤维上皮性肿瘤伴指状突起", "确诊甲母质瘤")],
        dx=("Onychomatricoma", "甲母质瘤"),
        reasoning=("A yellow longitudinal band with overcurvature suggested a matrix tumour. Dermoscopy showed no "
                   "pigment, making subungual melanoma unlikely. Histology showed a fibroepithelial tumour with "
                   "finger-like projections, confirming onychomatricoma.",
                   "黄色纵带伴过度弯曲提示甲母质肿瘤。皮肤镜未见色素，甲下黑色素瘤可能性小。组织学示纤维上皮性肿瘤伴指状突起，确诊甲母质瘤。"),
        facts=["Nail shows a yellow longitudinal band", "Nail plate shows transverse overcurvature",
               "Dermoscopy shows no pigment", "Subungual melanoma is unlikely",
               "Histology shows a fibroepithelial tumour with finger-like projections"],
    ),
    dict(
        case_id="clinmm-s003", specialty="Radiology", license="CC BY 4.0", qc=4,
        en=presentation("71-year-old man", "Intermittent right upper abdominal discomfort",
                        "Three months of intermittent bloating and right upper quadrant discomfort, worse after "
                        "meals. No fever, vomiting or weight loss.", "White cell count and liver tests normal.",
                        "Abdominal examination; chest radiograph and abdominal CT performed."),
        zh=presentation("71岁男性", "间歇性右上腹不适", "三个月来间歇性腹胀及右上腹不适，餐后加重。无发热、呕吐或体重下降。",
                        "白细胞计数及肝功能正常。", "进行了腹部查体、胸部X线及腹部CT检查。"),
        images=[("Figure 1", "Upright chest radiograph", "Gas-filled bowel loop with haustra between liver and right hemidiaphragm",
                 "Interposition of colon rather than free air", "立位胸片", "肝脏与右侧膈肌之间可见含气肠袢及结肠袋",
                 "提示结肠间位而非游离气体"),
                ("Figure 2", "Coronal abdominal CT", "Hepatic flexure interposed between liver and diaphragm, normal gallbladder",
                 "Confirms hepatodiaphragmatic interposition; excludes cholecystitis", "冠状位腹部CT",
                 "结肠肝曲位于肝脏与膈肌之间，胆囊正常", "确诊肝膈间位，排除胆囊炎")],
        dx=("Chilaiditi syndrome", "Chilaiditi综合征"),
        reasoning=("Subdiaphragmatic gas with visible haustra indicated colonic interposition rather than "
                   "pneumoperitoneum. CT confirmed the hepatic flexure between liver and diaphragm with a normal "
                   "gallbladder, excluding emphysematous cholecystitis. With symptoms, this is Chilaiditi syndrome.",
                   "膈下气体可见结肠袋，提示结肠间位而非气腹。CT证实结肠肝曲位于肝脏与膈肌之间且胆囊正常，排除气肿性胆囊炎。伴有症状，故诊断为Chilaiditi综合征。"),
        facts=["Radiograph shows subdiaphragmatic gas with haustra", "Pneumoperitoneum is excluded",
               "CT shows the hepatic flexure between liver and diaphragm", "Gallbladder is normal on CT",
               "Emphysematous cholecystitis is excluded", "Patient has abdominal symptoms"],
    ),
    dict(
        case_id="clinmm-s004", specialty="Radiology", license="CC0", qc=5,
        en=presentation("63-year-old woman, never smoker", "Cough and low-grade fever for six weeks",
                        "Persistent dry cough and low-grade fever despite two courses of antibiotics. Mild "
                        "exertional dyspnoea.", "CRP 48 mg/L; sputum cultures negative.",
                        "Chest examination; chest CT, follow-up CT, PET-CT and lung biopsy performed."),
        zh=presentation("63岁女性，从不吸烟", "咳嗽伴低热六周", "两个疗程抗生素治疗后仍持续干咳及低热。轻度活动后气促。",
                        "CRP 48 mg/L；痰培养阴性。", "进行了胸部查体、胸部CT、复查CT、PET-CT及肺活检。"),
        images=[("Figure 1A", "Axial chest CT", "Bilateral peribronchovascular consolidations with reversed halo sign",
                 "Suggests organizing pneumonia", "胸部轴位CT", "双侧支气管血管周围实变伴反晕征", "提示机化性肺炎"),
                ("Figure 1B", "Follow-up chest CT after 4 weeks", "Consolidations migrated to new locations",
                 "Migratory pattern favours organizing pneumonia over carcinoma", "4周后复查胸部CT", "实变游走至新部位",
                 "游走性改变更支持机化性肺炎而非肿瘤"),
                ("Figure 2", "PET-CT", "Moderate FDG uptake in the consolidations",
                 "Non-specific; does not separate inflammation from tumour", "PET-CT", "实变区FDG中度摄取",
                 "无特异性，不能区分炎症与肿瘤"),
                ("Figure 3", "Lung biopsy histology (H&E)", "Intra-alveolar fibroblastic plugs (Masson bodies), no malignant cells",
                 "Confirms organizing pneumonia", "肺活检组织学（HE染色）", "肺泡内成纤维细胞栓（Masson小体），未见恶性细胞",
                 "确诊机化性肺炎")],
        dx=("Cryptogenic organizing pneumonia", "隐源性机化性肺炎"),
        reasoning=("Peribronchovascular consolidations with a reversed halo sign that migrated on follow-up CT "
                   "suggested organizing pneumonia rather than mucinous adenocarcinoma. FDG uptake was "
                   "non-specific. Biopsy showed Masson bodies without malignant cells. No cause was found, so the "
                   "diagnosis is cryptogenic organizing pneumonia.",
                   "支气管血管周围实变伴反晕征并在复查CT上游走，提示机化性肺炎而非黏液腺癌。FDG摄取无特异性。活检见Masson小体且无恶性细胞。未发现病因，故诊断为隐源性机化性肺炎。"),
        facts=["CT shows peribronchovascular consolidations", "CT shows a reversed halo sign",
               "Consolidations migrate on follow-up CT", "FDG uptake is non-specific",
               "Biopsy shows Masson bodies", "Biopsy shows no malignant cells",
               "Mucinous adenocarcinoma is less likely", "No secondary cause is found"],
    ),
    dict(
        case_id="clinmm-s005", specialty="Ophthalmology", license="CC BY 4.0", qc=4,
        en=presentation("45-year-old man", "Blurred vision in both eyes for three weeks",
                        "Painless bilateral blurred vision and floaters. A non-itchy rash on the palms resolved a "
                        "month ago.", "Serum RPR 1:64; TPPA reactive; HIV test negative.",
                        "Visual acuity; slit-lamp examination; fundus photography performed."),
        zh=presentation("45岁男性", "双眼视物模糊三周", "无痛性双眼视物模糊伴飞蚊症。一个月前手掌出现不痒的皮疹，已消退。",
                        "血清RPR 1:64；TPPA阳性；HIV检测阴性。", "进行了视力、裂隙灯检查及眼底照相。"),
        images=[("Figure 1", "Colour fundus photograph", "Vitritis with placoid yellow lesion at the macula",
                 "Typical of acute syphilitic posterior placoid chorioretinitis", "彩色眼底照相", "玻璃体炎伴黄斑区盘状黄色病灶",
                 "符合急性梅毒性后部盘状脉络膜视网膜炎")],
        dx=("Ocular syphilis (acute syphilitic posterior placoid chorioretinitis)", "眼梅毒（急性梅毒性后部盘状脉络膜视网膜炎）"),
        reasoning=("Bilateral painless vision loss after a palmar rash with a positive RPR and reactive TPPA points "
                   "to secondary syphilis. Fundus shows vitritis and a placoid macular lesion, typical of posterior "
                   "placoid chorioretinitis.",
                   "手掌皮疹后出现双眼无痛性视力下降，RPR阳性且TPPA阳性，提示二期梅毒。眼底示玻璃体炎及黄斑盘状病灶，符合后部盘状脉络膜视网膜炎。"),
        facts=["RPR test is positive", "TPPA is reactive", "Patient had a palmar rash",
               "Fundus exam reveals vitritis", "Fundus shows a placoid macular lesion"],
    ),
    dict(
        case_id="clinmm-s006", specialty="Nephrology", license="CC BY-NC-ND 4.0", qc=3,
        en=presentation("58-year-old man", "Dark urine and reduced urine output for ten days",
                        "Ten days of dark urine, malaise and decreasing urine output; one episode of blood-streaked "
                        "sputum.", "Serum creatinine 4.1 mg/dL (1.0 three months ago); urinalysis: red cell casts.",
                        "Blood pressure and volume assessment; renal ultrasound and kidney biopsy performed."),
        zh=presentation("58岁男性", "尿色深、尿量减少十天", "十天来尿色深、乏力、尿量逐渐减少；曾有一次痰中带血。",
                        "血肌酐4.1 mg/dL（三个月前1.0）；尿检：红细胞管型。", "进行了血压及容量评估、肾脏超声及肾活检。"),
        images=[("Figure 2A", "Renal biopsy light microscopy (PAS)", "Cellular crescents in most glomeruli",
                 "Crescentic glomerulonephritis", "肾活检光镜（PAS染色）", "多数肾小球见细胞性新月体", "新月体性肾小球肾炎"),
                ("Figure 2B", "Renal biopsy immunofluorescence (IgG)", "Linear IgG staining along glomerular basement membranes",
                 "Confirms anti-GBM disease", "肾活检免疫荧光（IgG）", "IgG沿肾小球基底膜线性沉积", "确诊抗GBM病")],
        dx=("Anti-glomerular basement membrane disease", "抗肾小球基底膜病"),
        reasoning=("Rapidly rising creatinine with red cell casts and haemoptysis suggested a pulmonary-renal "
                   "syndrome. Biopsy showed crescents and linear IgG along the basement membrane, confirming anti-GBM "
                   "disease rather than ANCA vasculitis.",
                   "肌酐快速升高伴红细胞管型及咯血，提示肺肾综合征。活检见新月体且IgG沿基底膜线性沉积，确诊抗GBM病而非ANCA相关血管炎。"),
        facts=["Serum creatinine rises rapidly", "Urinalysis shows red cell casts", "Patient has haemoptysis",
               "Biopsy shows cellular crescents", "Immunofluorescence shows linear IgG along the GBM",
               "ANCA vasculitis is less likely"],
    ),
    dict(
        case_id="clinmm-s007", specialty="Emergency Medicine", license="CC BY 4.0", qc=4,
        en=presentation("66-year-old man with hypertension", "Sudden tearing chest pain radiating to the back",
                        "Abrupt severe chest pain one hour before arrival, radiating between the shoulder blades.",
                        "Troponin normal; D-dimer 4,800 ng/mL.",
                        "Blood pressure in both arms; ECG; chest radiograph and CT angiography performed."),
        zh=presentation("66岁男性，高血压病史", "突发撕裂样胸痛放射至背部", "到院前一小时突发剧烈胸痛，放射至两肩胛之间。",
                        "肌钙蛋白正常；D-二聚体4800 ng/mL。", "测量双上肢血压，进行了心电图、胸片及CT血管造影检查。"),
        images=[("Figure 1", "Chest radiograph", "Widened mediastinum", "Raises concern for aortic pathology",
                 "胸部X线片", "纵隔增宽", "提示主动脉病变可能"),
                ("Figure 2", "CT angiography of the aorta", "Intimal flap from the ascending aorta to the arch",
                 "Confirms Stanford type A dissection", "主动脉CT血管造影", "内膜片自升主动脉延伸至主动脉弓",
                 "确诊Stanford A型夹层")],
        dx=("Stanford type A aortic dissection", "Stanford A型主动脉夹层"),
        reasoning=("Tearing chest pain radiating to the back in a hypertensive patient with normal troponin and "
                   "raised D-dimer suggested aortic dissection rather than myocardial infarction. The radiograph "
                   "showed a widened mediastinum and CT angiography an intimal flap involving the ascending aorta.",
                   "高血压患者出现放射至背部的撕裂样胸痛，肌钙蛋白正常而D-二聚体升高，提示主动脉夹层而非心肌梗死。胸片示纵隔增宽，CT血管造影示累及升主动脉的内膜片。"),
        facts=["Chest pain is tearing and radiates to the back", "Patient has hypertension", "Troponin is normal",
               "D-dimer is raised", "Myocardial infarction is less likely", "Chest radiograph shows a widened mediastinum",
               "CT angiography shows an intimal flap in the ascending aorta"],
    ),
]


def draw_image(seed: int, kind: str) -> Image.Image:
    """A 64x64 cartoon: grey background, a few shapes from `seed`, a tint per image type, and 'SYN'."""
    rng = random.Random(seed)
    tint = {"MRI": (90, 90, 120), "CT": (110, 110, 110), "photo": (170, 120, 100), "histo": (200, 140, 180),
            "fundus": (190, 90, 40), "xray": (70, 70, 70)}[kind]
    img = Image.new("RGB", (SIZE, SIZE), tint)
    draw = ImageDraw.Draw(img)
    for _ in range(4):
        x, y = rng.randrange(4, 44), rng.randrange(4, 44)
        w, h = rng.randrange(6, 18), rng.randrange(6, 18)
        shade = rng.randrange(150, 255)
        draw.ellipse((x, y, x + w, y + h), fill=(shade, shade, shade))
    draw.text((2, 52), "SYN", fill=(255, 255, 0))
    return img


def kind_of(image_type: str) -> str:
    lowered = image_type.lower()
    for key, kind in (("mri", "MRI"), ("ct", "CT"), ("photograph of the nail", "photo"), ("dermoscopy", "photo"),
                      ("fundus", "fundus"), ("histo", "histo"), ("biopsy", "histo"), ("radiograph", "xray")):
        if key in lowered:
            return kind
    return "CT"


def case_json(case: dict) -> tuple[dict, dict[str, str]]:
    number = int(case["case_id"].rsplit("s", 1)[1])
    files = {img[0]: f"images/{case['case_id']}/{k + 1}.png" for k, img in enumerate(case["images"])}
    record = {
        "case_id": case["case_id"], "pmid": f"{number:08d}", "pmcid": f"PMC{number:08d}",
        "license": case["license"], "specialty": case["specialty"], "qc_fidelity_score": case["qc"],
        "case_presentation": {"english": case["en"], "chinese": case["zh"]},
        "images": {
            "english": [{"image_id": i[0], "image_type": i[1], "image_finding": i[2], "diagnostic_significance": i[3]}
                        for i in case["images"]],
            "chinese": [{"image_id": i[0], "image_type": i[4], "image_finding": i[5], "diagnostic_significance": i[6]}
                        for i in case["images"]],
        },
        "final_diagnosis": {"english": case["dx"][0], "chinese": case["dx"][1]},
        "diagnostic_reasoning": {"english": case["reasoning"][0], "chinese": case["reasoning"][1]},
        "image_files": files,
        "reference_facts": case["facts"],
    }
    return record, files


def main() -> None:
    for folder in ("cases", "images"):
        shutil.rmtree(HERE / folder, ignore_errors=True)
        (HERE / folder).mkdir()
    n_images = 0
    for index, case in enumerate(CASES):
        record, files = case_json(case)
        (HERE / "cases" / f"{case['case_id']}.json").write_text(
            json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        for k, (image, rel) in enumerate(zip(case["images"], files.values())):
            path = HERE / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            draw_image(1000 * index + k, kind_of(image[1])).save(path, format="PNG", optimize=False)
            n_images += 1
    print(f"wrote {len(CASES)} cases and {n_images} images to {HERE}")


if __name__ == "__main__":
    main()
