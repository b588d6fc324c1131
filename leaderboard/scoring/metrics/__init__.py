"""Pure, vectorised metric functions (numpy in, numpy out)."""
