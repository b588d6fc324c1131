"""Privacy: what may leave the scoring box. Disclosure control of public records (the k-rule,
complementary suppression, noise on held-out results) and redaction of secrets and hosts.

May import: nothing of the package (both run on plain records)."""
