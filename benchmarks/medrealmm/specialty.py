"""This benchmark's department values on the hub's one clinical-specialty list (leaderboard/publishing/specialties.py), for
the cross-benchmark model profile. A value with no sensible specialty is left out, never forced into a
neighbour."""
SPECIALTY_STRATUM = "department"
SPECIALTY_MAP = {
        "中医科": "Traditional Chinese medicine", "儿科": "Paediatrics & congenital", "妇科": "Obstetrics & gynaecology",
        "产科": "Obstetrics & gynaecology", "妇产科": "Obstetrics & gynaecology", "皮肤科": "Dermatology",
        "皮肤性病科": "Dermatology", "眼科": "Ophthalmology", "精神心理科": "Psychiatry", "精神科": "Psychiatry",
        "骨科": "Musculoskeletal & orthopaedics", "外科": "Surgery", "心血管内科": "Cardiology", "心内科": "Cardiology",
        "消化内科": "Gastroenterology", "内分泌科": "Endocrinology", "神经内科": "Neurology", "肿瘤科": "Oncology",
        "呼吸内科": "Pulmonology", "肾内科": "Nephrology & urology", "泌尿外科": "Nephrology & urology",
        "感染科": "Infectious disease", "急诊科": "Emergency medicine", "内科": "Internal medicine"}
