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

# Spellings a release may use for a Table 6/7 value (case, spaces, hyphens and a trailing "System" are
# ignored anyway, see dataset_builders.vocabulary): each half of a "A / B" or "A & B" name, and common
# names. Ambiguous ones (e.g. "Musculoskeletal": Skeletal or Muscular?) are left out: kept verbatim.
MODALITY_SYNONYMS = {
    "Pathology": "Pathology / Microscopy", "Microscopy": "Pathology / Microscopy",
    "Histopathology": "Pathology / Microscopy", "Histology": "Pathology / Microscopy",
    "Photography": "Photography / Dermatology", "Dermatology": "Photography / Dermatology",
    "Clinical photography": "Photography / Dermatology",
    "X-ray": "X-ray & Fluoroscopy", "Xray": "X-ray & Fluoroscopy", "Radiography": "X-ray & Fluoroscopy",
    "Fluoroscopy": "X-ray & Fluoroscopy",
    "Computed tomography": "CT", "Magnetic resonance imaging": "MRI", "MR": "MRI",
    "Ultrasonography": "Ultrasound", "US": "Ultrasound",
    "Ophthalmology": "Ophthalmology / Optical", "Optical": "Ophthalmology / Optical",
    "Nuclear Medicine": "Nuclear Medicine / PET", "PET": "Nuclear Medicine / PET",
    "Physiologic Signal": "Physiologic Signals",
    "Derived": "Derived / Meta", "Meta": "Derived / Meta",
}
ORGAN_SYNONYMS = {
    "Gastrointestinal": "Digestive", "Skin": "Integumentary", "Neurological": "Nervous",
    "Circulatory": "Cardiovascular", "Renal": "Urinary", "Other": "Other / NA", "NA": "Other / NA",
    "N/A": "Other / NA",
}
