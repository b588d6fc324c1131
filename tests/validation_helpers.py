"""Write a prediction file and validate it; a report's messages as text (shared by the validation tests)."""
from leaderboard.intake.prediction_files import validate


def validate_text(tmp_path, text, schema, ids, name="p.jsonl", **options):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode("utf-8"))
    return validate(path, schema, ids, **options)


def messages(report):
    return [str(i) for i in report.issues]
