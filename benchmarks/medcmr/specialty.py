"""This benchmark's organ system values on the hub's one clinical-specialty list (leaderboard/publishing/specialties.py), for
the cross-benchmark model profile. A value with no sensible specialty is left out, never forced into a
neighbour."""
SPECIALTY_STRATUM = "organ_system"
SPECIALTY_MAP = {
        "Cardiovascular": "Cardiology", "Digestive": "Gastroenterology", "Endocrine": "Endocrinology",
        "Integumentary": "Dermatology", "Muscular": "Musculoskeletal & orthopaedics",
        "Skeletal": "Musculoskeletal & orthopaedics", "Nervous": "Neurology",
        "Reproductive": "Obstetrics & gynaecology", "Respiratory": "Pulmonology", "Urinary": "Nephrology & urology"}
