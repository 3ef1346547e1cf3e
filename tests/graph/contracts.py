"""Contract texts shared by the agent tests (our own wording)."""

SERVICES_HEAD = """SERVICES AGREEMENT

1. Definitions
"Services" means the consulting services described in Schedule 1.

2. Payment
The Customer shall pay each invoice within 30 days of receipt. The Supplier shall hold a \
retention of 10% of each payment until final acceptance.

3. Delay
If the Supplier fails to complete the Services by the Completion Date, the Supplier shall pay \
liquidated damages of 0.5% of the Contract Price per day of delay.
"""
"""Clauses 1-3 of a services agreement: a definition, a retention above market (10%) and
liquidated damages (0.5% a day, no cap) that the rules flag."""
