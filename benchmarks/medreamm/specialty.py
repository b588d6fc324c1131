"""This benchmark's disease category values on the hub's one clinical-specialty list (leaderboard/publishing/specialties.py), for
the cross-benchmark model profile. A value with no sensible specialty is left out, never forced into a
neighbour."""
SPECIALTY_STRATUM = "disease_category"
SPECIALTY_MAP = {
        "Cardiovascular": "Cardiology", "Dermatologic": "Dermatology", "Endocrine/Metabolic": "Endocrinology",
        "Endocrine": "Endocrinology", "Gastrointestinal": "Gastroenterology", "Infectious": "Infectious disease",
        "Musculoskeletal": "Musculoskeletal & orthopaedics", "Orthopedic": "Musculoskeletal & orthopaedics",
        "Neoplastic": "Oncology", "Neurological": "Neurology", "Congenital": "Paediatrics & congenital",
        "Respiratory": "Pulmonology", "Renal": "Nephrology & urology"}
