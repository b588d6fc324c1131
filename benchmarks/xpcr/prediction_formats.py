"""The prediction shapes this benchmark's authors' scripts write, read as prediction files
(leaderboard/intake/author_formats.py). None is declared: the project's spec of this benchmark records no
script of the authors that writes predictions to a file, so there is no shape to copy. Files in the
project's own shape (`id` plus the fields in the README) and lmms-eval logs (`python -m leaderboard
from-lmms-eval`) are read. Add a shape here (an AuthorFormat) when the authors publish one."""
FORMATS = ()
