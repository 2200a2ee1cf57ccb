"""What the calibration scripts share: the list of checks of a synthetic trace against published
values (each with its tolerance and verdict), printed as a table or as JSON with the exit status
the tests read, and the one-value DuckDB helpers.

The scripts are run as `python3 tests/calibration/TRACE.py DIR`, so this folder is on their import
path.
"""
import json
import sys


class Report:
    """The checks so far: name, published value, measured value, tolerance (as text) and verdict."""

    def __init__(self):
        self.rows = []

    def add(self, name, published, measured, tolerance, ok):
        self.rows.append({"name": name, "published": published, "measured": measured,
                          "tolerance": tolerance, "ok": bool(ok)})

    def rel(self, name, published, measured, tol, floor=0.0, digits=3):
        """Within tol x |published| (or within floor, when that is wider)."""
        ok = abs(measured - published) <= max(tol * abs(published), floor)
        t = f"±{tol * 100:g}% relative" + (f" (or ±{floor:g})" if floor else "")
        self.add(name, published, round(measured, digits), t, ok)

    def abs(self, name, published, measured, tol, unit=""):
        """Within tol of published, in the value's own unit."""
        self.add(name, published, round(measured, 4), f"±{tol:g}{unit} absolute", abs(measured - published) <= tol)

    def finish(self, as_json, widths):
        """Prints the checks (JSON, or a table with the given widths of name, published, measured and
        tolerance) and exits 0 when every check holds, 1 otherwise."""
        if as_json:
            print(json.dumps(self.rows, indent=1))
        else:
            name, published, measured, tolerance = widths
            for x in self.rows:
                print(f"{x['name']:<{name}} {str(x['published']):>{published}} {str(x['measured']):>{measured}}  "
                      f"{x['tolerance']:<{tolerance}} {'ok' if x['ok'] else 'FAIL'}")
        sys.exit(0 if all(x["ok"] for x in self.rows) else 1)


def one(con, sql, params=()):
    """The first value of the first row of a DuckDB query."""
    return con.execute(sql, list(params)).fetchall()[0][0]


def median(con, expr, where, table="log"):
    """The median of expr over the rows of table that match where."""
    return one(con, f"select quantile_cont({expr}, 0.5) from {table} where {where}")
