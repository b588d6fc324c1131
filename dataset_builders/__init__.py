"""Re-publishes benchmark releases as Hub-shaped Parquet datasets (`python -m dataset_builders`)."""
__version__ = "0.1.0"
