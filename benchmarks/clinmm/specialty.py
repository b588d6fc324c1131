"""This benchmark's specialty values on the hub's one clinical-specialty list (leaderboard/publishing/specialties.py), for
the cross-benchmark model profile. A value with no sensible specialty is left out, never forced into a
neighbour."""
SPECIALTY_STRATUM = "specialty"
SPECIALTY_MAP = {
        "Dermatology": "Dermatology", "Emergency Medicine": "Emergency medicine",
        "Internal Medicine": "Internal medicine", "Nephrology": "Nephrology & urology", "Neurology": "Neurology",
        "Oncology": "Oncology", "Ophthalmology": "Ophthalmology", "Radiology": "Radiology & imaging"}
