"""`python -m contract_review.cli` runs the command line."""

from contract_review.cli import main

main()
