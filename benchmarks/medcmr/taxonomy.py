"""Med-CMR's closed value sets, exactly as the paper lists them. Kept free of heavy imports: the
scorer (`benchmarks.medcmr.scorer`) imports them too."""
from __future__ import annotations

# Table 8: abbreviation -> (task name, complexity group).
TASKS = {
    "SOD": ("Small-Object Detection", "visual"),
    "FDD": ("Fine-Detail Discrimination", "visual"),
    "SU": ("Spatial Understanding", "visual"),
    "TP": ("Temporal Prediction", "reasoning"),
    "CR": ("Causal Reasoning", "reasoning"),
    "LTG": ("Long-Tail Generalization", "reasoning"),
    "MSI": ("Multi-Source Integration", "reasoning"),
}
# Table 3 caption.
MEDICAL_INTELLIGENCE = {
    "CDS": "clinical decision support",
    "DX": "diagnosis",
    "PA": "psychophysiologic analysis",
    "PRA": "procedural risk assessment",
    "SEE": "staging and extent evaluation",
    "TRE": "treatment response evaluation",
}
# Table 6, strings exact.
MODALITIES = (
    "Pathology / Microscopy", "Photography / Dermatology", "CT", "X-ray & Fluoroscopy", "MRI", "Ultrasound",
    "Endoscopy", "Ophthalmology / Optical", "Nuclear Medicine / PET", "Physiologic Signals", "Radiotherapy",
    "Derived / Meta",
)
# Table 7, strings exact.
ORGAN_SYSTEMS = (
    "Digestive", "Integumentary", "Nervous", "Skeletal", "Other / NA", "Respiratory", "Cardiovascular",
    "Reproductive", "Muscular", "Urinary", "Endocrine",
)
