"""Domain plugins: parser profile, checklist, baselines and skills of one contract domain."""
