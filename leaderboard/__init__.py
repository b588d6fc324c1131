"""Scoring library for the medical multimodal benchmark hub (`python -m leaderboard`)."""
__version__ = "0.1.0"
