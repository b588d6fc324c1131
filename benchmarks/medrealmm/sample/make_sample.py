"""Deterministically (re)create the synthetic MedRealMM sample: `medrealmm_sample.jsonl` + `images/`.

Usage (from the repository root):

    .venv/bin/python benchmarks/medrealmm/sample/make_sample.py

Every consultation below was written for this sample (fictional patients, no real consultation or
published material); every picture is a cartoon drawn with PIL + numpy from a fixed seed and
labelled "SYNTHETIC SAMPLE". Repeated runs give byte-identical files for a fixed Pillow/libjpeg/zlib.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

HERE = Path(__file__).resolve().parent
IMAGES = HERE / "images"
LABEL = "SYNTHETIC SAMPLE"


# ----------------------------------------------------------------------------- pictures
def _canvas(seed: int, size, base, noise=12.0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    arr = np.ones((size[1], size[0], 3), dtype=np.float32) * np.array(base, dtype=np.float32)
    return np.clip(arr + rng.normal(0, noise, arr.shape), 0, 255)


def _finish(arr: np.ndarray, blur: float = 0.8) -> Image.Image:
    img = Image.fromarray(arr.astype(np.uint8), "RGB").filter(ImageFilter.GaussianBlur(blur))
    ImageDraw.Draw(img).text((4, img.height - 12), LABEL, fill=(255, 255, 0))
    return img


def skin(seed: int, lesion=(190, 60, 60), spots=6, size=(224, 168)) -> Image.Image:
    rng = np.random.default_rng(seed + 1)
    img = _finish(_canvas(seed, size, (225, 180, 150)))
    draw = ImageDraw.Draw(img)
    for _ in range(spots):
        x, y = rng.integers(30, size[0] - 30), rng.integers(20, size[1] - 40)
        r = int(rng.integers(6, 22))
        draw.ellipse((x - r, y - r * 0.7, x + r, y + r * 0.7), fill=lesion, outline=(150, 40, 40))
    return img


def report(seed: int, rows: list[tuple[str, str, str]], size=(240, 200)) -> Image.Image:
    img = _finish(_canvas(seed, size, (246, 246, 240), noise=3.0), blur=0.0)
    draw = ImageDraw.Draw(img)
    draw.text((8, 6), "LAB REPORT (SYNTHETIC)", fill=(20, 20, 20))
    draw.line((8, 20, size[0] - 8, 20), fill=(60, 60, 60))
    for i, (name, value, flag) in enumerate(rows):
        y = 28 + 16 * i
        draw.text((8, y), name, fill=(20, 20, 20))
        draw.text((120, y), value, fill=(200, 20, 20) if flag else (20, 20, 20))
        draw.text((190, y), flag, fill=(200, 20, 20))
    draw.rectangle((size[0] - 70, size[1] - 40, size[0] - 10, size[1] - 18), fill=(0, 0, 0))  # a masked stamp
    return img


def eye(seed: int, red: float = 0.6, size=(200, 140)) -> Image.Image:
    arr = _canvas(seed, size, (210, 170, 150))
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    white = ((xx - 100) / 80.0) ** 2 + ((yy - 70) / 38.0) ** 2 <= 1
    arr[white] = np.array([235, 235 - 120 * red, 235 - 130 * red])
    iris = ((xx - 100) ** 2 + (yy - 70) ** 2) <= 26 ** 2
    arr[iris] = np.array([90, 60, 40])
    arr[((xx - 100) ** 2 + (yy - 70) ** 2) <= 10 ** 2] = 10
    return _finish(arr, blur=1.0)


def xray(seed: int, fracture: bool, size=(180, 240)) -> Image.Image:
    arr = _canvas(seed, size, (25, 25, 25), noise=6.0)
    img = Image.fromarray(arr.astype(np.uint8), "RGB")
    draw = ImageDraw.Draw(img)
    draw.rounded_rectangle((70, 20, 110, 220), radius=14, fill=(205, 205, 205))
    if fracture:
        draw.line((68, 128, 112, 116), fill=(30, 30, 30), width=3)
    img = img.filter(ImageFilter.GaussianBlur(1.2))
    ImageDraw.Draw(img).text((4, size[1] - 12), LABEL, fill=(255, 255, 0))
    return img


def tongue(seed: int, coat=(240, 235, 200), size=(200, 200)) -> Image.Image:
    arr = _canvas(seed, size, (120, 70, 60))
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    body = ((xx - 100) / 70.0) ** 2 + ((yy - 110) / 80.0) ** 2 <= 1
    arr[body] = np.array([200, 90, 95])
    centre = ((xx - 100) / 40.0) ** 2 + ((yy - 100) / 45.0) ** 2 <= 1
    arr[centre] = np.array(coat)
    return _finish(arr, blur=1.5)


def ultrasound(seed: int, size=(224, 176)) -> Image.Image:
    rng = np.random.default_rng(seed)
    arr = np.zeros((size[1], size[0]), dtype=np.float32)
    yy, xx = np.mgrid[0:size[1], 0:size[0]]
    angle = np.arctan2(xx - size[0] / 2, yy + 10)
    fan = (np.abs(angle) < 0.6) & (yy > 8)
    arr[fan] = rng.gamma(2.0, 40.0, fan.sum())
    cyst = ((xx - 110) / 26.0) ** 2 + ((yy - 100) / 18.0) ** 2 <= 1
    arr[cyst] = 8
    grey = np.clip(arr, 0, 255)
    return _finish(np.stack([grey] * 3, axis=-1), blur=1.0)


# ----------------------------------------------------------------------------- cases
def P(text, *images):
    return {"role": "patient", "text": text, "images": list(images)}


def D(text, *images):
    return {"role": "physician", "text": text, "images": list(images)}


def R(criterion, points):
    return {"criterion": criterion, "points": points}


CASES = [
    {
        "id": "MRS001", "department": "皮肤科", "department_group": "皮肤性病科", "intent": "症状咨询",
        "stage": "诊断与解释",
        "patient_metadata": {"年龄": "28岁", "性别": "男", "主诉": "双足趾缝瘙痒脱皮2周", "病程": "2周"},
        "dialogue": [
            P("医生您好，我脚趾缝这两周一直很痒，还脱皮，有点发白。", "images/MRS001/1.jpg"),
            D("您好，请问是双脚都有吗？平时穿运动鞋的时间长吗？"),
            P("两只脚都有，每天上班穿运动鞋，出汗比较多。这是另一只脚的照片。", "images/MRS001/2.jpg"),
        ],
        "rubric": [
            R("结合图片指出趾缝浸渍、脱屑的表现，考虑足癣（脚气）的可能", 5),
            R("说明足癣与潮湿、出汗、不透气的鞋袜有关", 3),
            R("建议外用抗真菌药物（如联苯苄唑、特比萘芬乳膏）", 5),
            R("说明外用药需坚持足够疗程（皮损消退后再用1-2周）", 5),
            R("给出日常护理建议：保持足部干燥、勤换袜子、鞋袜透气", 3),
            R("提醒不要与家人共用拖鞋、毛巾，以免传染", 2),
            R("提示若出现红肿、渗液或疼痛加重需线下就诊", 2),
            R("建议口服抗生素治疗", -5),
            R("在没有依据的情况下断言为湿疹并建议外用激素药膏", -4),
        ],
        "original_response": "从照片看趾缝发白、脱皮，比较像足癣。建议用特比萘芬乳膏每天两次，症状好了以后再坚持用1到2周。平时保持脚干燥，袜子每天换，拖鞋毛巾不要和家人共用。",
    },
    {
        "id": "MRS002", "department": "儿科", "department_group": "儿科", "intent": "报告解读", "stage": "病史采集",
        "patient_metadata": "患儿，女，3岁；发热1天",
        "dialogue": [
            P("孩子昨天晚上开始发烧，最高39度，这是今天查的血常规，帮忙看看。", "images/MRS002/1.png"),
            D("好的，我看一下。孩子现在精神状态怎么样？"),
            P("精神还可以，就是不太想吃东西。"),
            P("还有点咳嗽，喉咙有点红，我拍了一张。", "images/MRS002/2.jpg"),
        ],
        "rubric": [
            R("解读血常规：白细胞和中性粒细胞升高、C反应蛋白升高，提示细菌感染可能", 5),
            R("询问发热的具体体温曲线和持续时间", 3),
            R("询问是否有呕吐、腹泻、皮疹、抽搐等伴随症状", 3),
            R("询问尿量和饮水情况，评估有无脱水", 3),
            R("询问用药史（是否已服用退烧药或抗生素）", 3),
            R("说明体温超过38.5℃可使用对乙酰氨基酚或布洛芬退热", 2),
            R("交代危险信号：精神差、持续高热不退、呼吸急促、抽搐时应立即就医", 4),
            R("推荐使用阿司匹林为儿童退热", -6),
            R("未询问任何病史就直接给出确定诊断和处方", -4),
        ],
        "original_response": "血常规白细胞和中性粒偏高，CRP也高，考虑细菌感染可能。孩子吃过退烧药吗？烧了几次，最高多少度？有没有吐、拉肚子、起疹子？尿多不多？如果精神变差、一直高烧或者抽搐要马上去医院。",
    },
    {
        "id": "MRS003", "department": "眼科", "department_group": "眼科", "intent": "用药咨询", "stage": "治疗建议",
        "patient_metadata": {"年龄": "35岁", "性别": "女", "主诉": "右眼红、分泌物多3天"},
        "dialogue": [
            P("右眼红了三天，早上起来眼屎很多，有点黏。", "images/MRS003/1.jpg"),
            D("视力有没有下降？眼睛痛不痛？怕不怕光？"),
            P("视力没变，不怎么痛，就是有异物感。家里有妥布霉素滴眼液，可以用吗？"),
        ],
        "rubric": [
            R("结合图片考虑急性细菌性结膜炎的可能", 5),
            R("说明妥布霉素滴眼液可以使用，并给出用法（如每日4次）", 5),
            R("建议用药疗程约5-7天，不宜长期使用", 3),
            R("强调注意手卫生，毛巾单独使用，避免传染他人", 3),
            R("提醒使用期间不要佩戴隐形眼镜", 2),
            R("说明若出现视力下降、眼痛加重或畏光需及时到眼科就诊", 4),
            R("建议使用含激素的滴眼液作为首选", -5),
            R("建议自行热敷并揉眼", -2),
        ],
        "original_response": None,
    },
    {
        "id": "MRS004", "department": "骨科", "department_group": "外科", "intent": "病情评估", "stage": "诊断与解释",
        "patient_metadata": {"年龄": "52岁", "性别": "女", "主诉": "摔倒后右手腕肿痛1天"},
        "dialogue": [
            P("昨天摔了一跤，右手撑地，现在手腕肿得厉害，这是在社区医院拍的片子。",
              "images/MRS004/1.png", "images/MRS004/2.png"),
            D("手指能活动吗？有没有麻木？"),
            P("手指能动，但是一动手腕就很痛，没有麻。", "images/MRS004/3.jpg"),
            D("好的，我再看看片子。"),
            P("医生，严重吗？需要手术吗？"),
        ],
        "rubric": [
            R("结合X线片指出桡骨远端骨折的可能", 6),
            R("说明是否需要手术取决于骨折移位程度、是否累及关节面，需骨科面诊评估", 5),
            R("建议先用夹板或支具临时固定，抬高患肢", 3),
            R("建议冰敷减轻肿胀（伤后48小时内）", 2),
            R("提醒观察手指血运、感觉，出现麻木发紫需立即就医", 4),
            R("建议尽快到医院骨科就诊复查", 3),
            R("考虑到患者52岁女性，建议评估骨质疏松", 2),
            R("在未面诊的情况下明确告知一定不需要手术", -5),
            R("建议按摩或热敷患处促进恢复", -4),
        ],
        "original_response": "片子上看桡骨远端有骨折线。要不要手术要看移位情况，建议尽快到骨科门诊让医生看片子评估。现在先用夹板固定，抬高手，48小时内可以冰敷。如果手指发麻、发紫马上去急诊。另外您这个年龄建议查一下骨密度。",
    },
    {
        "id": "MRS005", "department": "中医科", "department_group": "中医科", "intent": "调理咨询", "stage": "治疗建议",
        "patient_metadata": {"年龄": "41岁", "性别": "男", "主诉": "口干口苦、大便黏腻1月"},
        "dialogue": [
            P("大夫，最近一个月总是口苦口干，大便黏马桶，睡觉也不好。这是舌头照片。", "images/MRS005/1.jpg"),
            D("平时饮酒吗？饮食口味怎么样？"),
            P("应酬多，经常喝酒，爱吃辣和油腻的。"),
        ],
        "rubric": [
            R("结合舌象（舌红、苔黄腻）辨证为湿热（如肝胆湿热或脾胃湿热）", 6),
            R("建议减少饮酒，饮食清淡，少食辛辣油腻", 4),
            R("给出中成药或方剂建议（如龙胆泻肝丸、甘露消毒丹等）并说明需辨证使用", 4),
            R("提醒中成药不宜长期服用，症状改善后停药", 2),
            R("建议规律作息，适当运动", 2),
            R("提示若伴有体重下降、黄疸等症状应到医院进一步检查", 3),
            R("辨证为阳虚并建议温补（如附子、鹿茸）", -5),
            R("声称中药可以治愈所有相关疾病、无需任何检查", -3),
        ],
        "original_response": "看舌苔黄厚腻、舌质偏红，属于湿热体质。要少喝酒，清淡饮食。可以吃一段时间甘露消毒丹，好转就停。如果出现眼睛皮肤发黄或体重明显下降，要去医院查一下肝功能。",
    },
    {
        "id": "MRS006", "department": "精神心理科", "department_group": "精神心理科", "intent": "症状咨询",
        "stage": "病史采集",
        "patient_metadata": {"年龄": "24岁", "性别": "女"},
        "dialogue": [
            P("医生，我最近半年总是失眠，心慌，这是我之前做的量表结果。", "images/MRS006/1.png"),
            D("这个量表结果提示有中度焦虑。最近有没有什么压力比较大的事情？"),
            P("工作压力很大，经常加班。"),
            D("每天大概能睡几个小时？入睡困难还是容易早醒？"),
            P("入睡很难，要一两个小时才能睡着，一晚上睡四五个小时。"),
            P("有时候觉得活着很累。"),
        ],
        "rubric": [
            R("针对“活着很累”进一步评估自杀风险（是否有自伤、轻生的想法或计划）", 8),
            R("共情并肯定患者主动求助", 3),
            R("询问情绪低落、兴趣减退等抑郁相关症状", 3),
            R("询问是否有既往精神疾病史或用药史", 2),
            R("建议到精神心理科门诊面诊进一步评估", 3),
            R("提供心理危机求助途径（如心理援助热线）", 3),
            R("忽视患者的轻生表述，只讨论睡眠问题", -8),
            R("在未评估的情况下直接推荐具体的安眠药及剂量", -5),
        ],
        "original_response": "谢谢你愿意说出来。你说有时觉得活着很累，想问一下，最近有没有过伤害自己或者不想活的念头？有没有具体的想法？另外最近是不是对什么都提不起兴趣、情绪低落？之前有没有看过心理科或吃过药？",
    },
    {
        "id": "MRS007", "department": "妇科", "department_group": "妇产科", "intent": "报告解读", "stage": "患者答疑",
        "patient_metadata": {"年龄": "30岁", "性别": "女", "主诉": "体检发现卵巢囊肿"},
        "dialogue": [
            P("体检B超说左边卵巢有个囊肿，3厘米，要紧吗？", "images/MRS007/1.png", "images/MRS007/2.png"),
            D("您好，月经规律吗？有没有肚子痛？", "images/MRS007/3.png"),
            P("月经规律，不痛。上面那张是您发的示意图吗？我看到了。之前没有查出过。", "images/MRS007/4.png"),
            P("需要做手术吗？"),
        ],
        "rubric": [
            R("解读B超：左卵巢约3cm无回声区，边界清，考虑生理性（功能性）囊肿可能大", 5),
            R("说明3cm左右、无症状的单纯性囊肿一般不需要手术", 5),
            R("建议月经干净后3-7天复查B超观察变化", 4),
            R("说明如囊肿持续增大、超过5cm或性质可疑需进一步评估", 3),
            R("交代出现突发剧烈腹痛需立即就诊（警惕扭转或破裂）", 4),
            R("必要时可查肿瘤标志物（如CA125）", 1),
            R("建议立即手术切除囊肿", -5),
            R("断言囊肿是恶性肿瘤", -6),
        ],
        "original_response": "从B超看是单纯的囊肿，3厘米左右，很可能是生理性的，一般不用手术。建议下次月经干净后3到7天复查B超。如果突然剧烈肚子痛要马上去急诊。",
    },
]

IMAGE_MAKERS = {
    "MRS001/1.jpg": lambda: skin(11, lesion=(235, 225, 215), spots=7),
    "MRS001/2.jpg": lambda: skin(12, lesion=(230, 220, 210), spots=5),
    "MRS002/1.png": lambda: report(21, [("WBC", "16.8", "H"), ("NEUT%", "82.1", "H"), ("LYM%", "12.0", "L"),
                                        ("HGB", "121", ""), ("PLT", "265", ""), ("CRP", "38.5", "H")]),
    "MRS002/2.jpg": lambda: skin(22, lesion=(200, 50, 60), spots=3, size=(192, 160)),
    "MRS003/1.jpg": lambda: eye(31, red=0.8),
    "MRS004/1.png": lambda: xray(41, fracture=True),
    "MRS004/2.png": lambda: xray(42, fracture=True, size=(160, 220)),
    "MRS004/3.jpg": lambda: skin(43, lesion=(170, 110, 150), spots=2),
    "MRS005/1.jpg": lambda: tongue(51),
    "MRS006/1.png": lambda: report(61, [("SAS", "63", "H"), ("SDS", "52", ""), ("PSQI", "15", "H")]),
    "MRS007/1.png": lambda: ultrasound(71),
    "MRS007/2.png": lambda: report(72, [("L-OVARY", "31x24mm", "!"), ("R-OVARY", "normal", ""),
                                        ("UTERUS", "normal", "")]),
    "MRS007/3.png": lambda: ultrasound(73, size=(160, 128)),
    "MRS007/4.png": lambda: report(74, [("CA125", "18.2", ""), ("HCG", "<1.0", "")]),
}


def main() -> None:
    for rel, make in sorted(IMAGE_MAKERS.items()):
        path = IMAGES / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        image = make()
        if path.suffix == ".jpg":
            image.save(path, format="JPEG", quality=85)
        else:
            image.save(path, format="PNG", optimize=False)
    lines = [json.dumps(case, ensure_ascii=False) for case in CASES]
    (HERE / "medrealmm_sample.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
