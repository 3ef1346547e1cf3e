"""Exports of review results to other tools (calendars, spreadsheets)."""
