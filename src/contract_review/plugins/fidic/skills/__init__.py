"""FIDIC skills: merging General and Particular Conditions, and checking the Particular
Conditions for internal consistency and risk shifts. Registered by the FIDIC plugin."""
