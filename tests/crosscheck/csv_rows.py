"""Reads a CSV file with Python's own csv module (RFC 4180 quoting) and
prints its rows as JSON: a second reader for tracelab's CSV writer, used by
tests/it/hardening_output.rs.

Usage: csv_rows.py FILE
"""
import csv
import json
import sys

with open(sys.argv[1], newline="", encoding="utf-8") as f:
    print(json.dumps(list(csv.reader(f))))
