#!/usr/bin/env python3
"""A seeded corpus of analyst-style SQL, run by tracelab and by DuckDB on the same store and compared.

Usage: sql_corpus.py TRACELAB STORE OUT_DIR [--count N] [--seed S] [--timeout SECONDS] [--jobs J]

The generator writes queries of the shapes an analyst writes over the traces: filters on times (string
literals with and without a zone), GROUP BY with counts, sums, means, quantiles and HAVING, CASE bins, joins
(inner and left), EXISTS / IN / NOT IN subqueries, window functions (ranks, running sums, shares of a
total, LAG/LEAD), CTEs, set operations, string and date functions, integer and float arithmetic, casts,
NULL handling and ordering. Every result is fully ordered (ORDER BY every output column), so rows are
compared in order. The same seed gives the same queries.

Each query runs as `tracelab query -f FILE --format csv` (a new process, under --timeout) and in DuckDB,
which is set up as PostgreSQL answers: the session time zone UTC, NULLs last ascending and first
descending (`default_null_order`), integer division for `/` between integers (`integer_division`).
Outcomes:
  agree            same columns, rows and cells (numbers within 1e-9 relative, times as instants)
  both refuse      both engines refuse the query (an ill-typed query; PostgreSQL refuses it too)
  documented       a difference or refusal of a kind listed in queries/README.md's "Differences from
                   DuckDB" (each KNOWN entry below names its line there), with who is right by PostgreSQL
  FAILURE          any other difference, a refusal without a documented cause, a crash (exit code other
                   than 0 and 1) or a query over the time limit
Writes OUT_DIR/corpus.json (every query with its outcome) and prints the counts; exits 1 on any FAILURE,
listing them. DuckDB is the second engine: written from the store layout in docs/schema.md, not from
tracelab's code.
"""
import argparse
import concurrent.futures
import json
import random
import re
import subprocess
import sys
import threading
from pathlib import Path

import duckdb

sys.path.insert(0, str(Path(__file__).parent))
import check_queries  # noqa: E402  (the cell comparison and the table layout)

KEYWORDS = {"user", "group"}

# Differences with DuckDB that queries/README.md documents: tag -> (the README's text for it, which
# cell differences it explains). A query carries a tag when the generator used the construct; a
# difference in a query is "documented" only if one of its tags is listed here, every differing cell
# is of the kind the entry explains, and the README holds the text.
KNOWN = {
    # PostgreSQL: CORR and REGR_* are NULL when a variance is zero; DuckDB gives NaN.
    "corr": ("**CORR of a constant**", lambda problem: problem.endswith("tracelab '' != duckdb nan")),
}
# tracelab refusals with a documented cause: (piece of tracelab's message, README text).
KNOWN_REFUSALS = [
    ("would build a text value", "**Text values have a ceiling**"),
    ("USING or NATURAL in a RIGHT or FULL join", "**RIGHT and FULL joins with USING**"),
    ("ALL: tracelab's engine would keep every copy", "**`EXCEPT ALL` and `INTERSECT ALL`**"),
]


def ident(c):
    return f'"{c}"' if c in KEYWORDS else c


class Schema:
    """The columns of the tables the corpus reads, by type, and values to compare them with."""

    TABLES = ["jobs", "philly_jobs", "philly_attempts", "helios_jobs", "pai_instances", "pai_tasks",
              "pai_sensors", "pai_machines"]

    def __init__(self, con):
        self.cols = {}
        self.values = {}
        self.ranges = {}
        for t in self.TABLES:
            described = con.execute(f"DESCRIBE {t}").fetchall()
            kinds = {}
            for name, dtype, *_ in described:
                kind = ("text" if dtype == "VARCHAR" else "int" if dtype == "BIGINT" else
                        "float" if dtype == "DOUBLE" else "time" if dtype.startswith("TIMESTAMP") else None)
                if kind:
                    kinds[name] = kind
            self.cols[t] = kinds
            for name, kind in kinds.items():
                col = ident(name)
                if kind == "text":
                    rows = con.execute(f"SELECT DISTINCT {col} FROM {t} WHERE {col} IS NOT NULL "
                                       f"ORDER BY {col} LIMIT 12").fetchall()
                    self.values[(t, name)] = [r[0] for r in rows]
                elif kind in ("int", "float"):
                    qs = con.execute(f"SELECT quantile_disc({col}, [0.1, 0.25, 0.5, 0.75, 0.9]) FROM {t}").fetchone()[0]
                    self.values[(t, name)] = [q for q in (qs or []) if q is not None]
                else:
                    lo, hi = con.execute(f"SELECT MIN({col}), MAX({col}) FROM {t}").fetchone()
                    self.ranges[(t, name)] = (lo, hi)

    def of(self, t, *kinds):
        return [c for c, k in self.cols[t].items() if k in kinds]


class Gen:
    """One query: SQL text and the tags of the constructs it uses."""

    def __init__(self, schema, rng):
        self.s = schema
        self.r = rng
        self.tags = set()

    # ---- values and small expressions
    def pick(self, seq):
        return self.r.choice(list(seq))

    def text_value(self, t, c):
        values = self.s.values.get((t, c)) or ["x"]
        v = self.pick(values)
        return "'" + str(v).replace("'", "''") + "'"

    def number(self, t, c):
        values = self.s.values.get((t, c)) or [1]
        v = self.pick(values)
        if self.s.cols[t][c] == "int":
            return str(int(v))
        return repr(round(float(v), 2))

    def time_literal(self, t, c):
        lo, hi = self.s.ranges[(t, c)]
        if lo is None:
            return "'2020-01-01'"
        at = lo + (hi - lo) * self.r.random()
        form = self.r.randrange(4)
        if form == 0:
            return f"'{at:%Y-%m-%d}'"
        if form == 1:
            return f"'{at:%Y-%m-%d %H:%M:%S}'"
        if form == 2:
            return f"'{at:%Y-%m-%dT%H:%M:%S}Z'"
        # The same instant eight hours ahead, with its offset.
        import datetime as dt
        ahead = at.astimezone(dt.timezone(dt.timedelta(hours=8)))
        return f"'{ahead:%Y-%m-%dT%H:%M:%S}+08:00'"

    def col(self, a, c):
        return f"{a}.{ident(c)}" if a else ident(c)

    def predicate(self, t, a=None):
        """A condition on table t (alias a)."""
        kind = self.r.randrange(10)
        texts, nums, times = self.s.of(t, "text"), self.s.of(t, "int", "float"), self.s.of(t, "time")
        if kind <= 1 and texts:
            c = self.pick(texts)
            op = self.pick(["=", "<>"])
            return f"{self.col(a, c)} {op} {self.text_value(t, c)}"
        if kind == 2 and texts:
            c = self.pick(texts)
            vals = sorted({self.text_value(t, c) for _ in range(3)})
            neg = self.pick(["", "NOT "])
            return f"{self.col(a, c)} {neg}IN ({', '.join(vals)})"
        if kind == 3 and texts:
            c = self.pick(texts)
            v = str(self.pick(self.s.values.get((t, c)) or ["x"]))[:2].replace("'", "")
            return f"{self.col(a, c)} {self.pick(['LIKE', 'ILIKE', 'NOT LIKE'])} '{v}%'"
        if kind in (4, 5) and nums:
            c = self.pick(nums)
            return f"{self.col(a, c)} {self.pick(['>', '>=', '<', '<=', '='])} {self.number(t, c)}"
        if kind == 6 and nums:
            c = self.pick(nums)
            lo, hi = sorted([float(self.number(t, c)), float(self.number(t, c))])
            return f"{self.col(a, c)} BETWEEN {lo} AND {hi}"
        if kind == 7 and times:
            c = self.pick(times)
            return f"{self.col(a, c)} {self.pick(['>=', '<', '>'])} {self.time_literal(t, c)}"
        if kind == 8:
            c = self.pick(self.s.cols[t])
            return f"{self.col(a, c)} IS {self.pick(['', 'NOT '])}NULL"
        if nums:
            c = self.pick(nums)
            test = self.pick(["IS TRUE", "IS NOT TRUE", "IS FALSE", "IS NOT FALSE"])
            return f"({self.col(a, c)} > {self.number(t, c)}) {test}"
        return "1 = 1"

    def where(self, t, a=None):
        n = self.r.choice([0, 1, 1, 2])
        if n == 0:
            return ""
        parts = [self.predicate(t, a) for _ in range(n)]
        glue = self.pick([" AND ", " AND ", " OR "])
        return " WHERE " + glue.join(f"({p})" for p in parts)

    def num_expr(self, t, a=None):
        nums = self.s.of(t, "int", "float")
        ints = self.s.of(t, "int")
        floats = self.s.of(t, "float")
        c = self.col(a, self.pick(nums))
        kind = self.r.randrange(14)
        if kind == 0 and ints:
            self.tags.add("int-div")
            return f"{self.col(a, self.pick(ints))} / {self.pick([2, 3, 4, 8])}"
        if kind == 1 and ints:
            return f"{self.col(a, self.pick(ints))} % {self.pick([2, 3, 5])}"
        if kind == 2 and floats:
            self.tags.add("cast-float-int")
            return f"CAST({self.col(a, self.pick(floats))} AS BIGINT)"
        if kind == 3:
            self.tags.add("round-half")
            return f"ROUND({c}, {self.pick([0, 1, 2])})"
        if kind == 4:
            return f"COALESCE({c}, -1)"
        if kind == 5:
            return f"ABS({c} - {self.pick([1, 10, 100])})"
        if kind == 6:
            return f"FLOOR({c} / 10.0)"
        if kind == 7:
            return f"CEIL({c} / 100.0)"
        if kind == 8:
            return f"GREATEST({c}, 1)"
        if kind == 9:
            return f"LN(ABS({c}) + 1)"
        if kind == 10:
            return f"SQRT(ABS({c}))"
        if kind == 11:
            return f"{c} * 1.5 + 2"
        if kind == 12:
            return f"NULLIF({c}, 0)"
        return c

    def text_expr(self, t, a=None):
        c = self.col(a, self.pick(self.s.of(t, "text")))
        other = self.col(a, self.pick(self.s.of(t, "text")))
        return self.pick([
            c, f"LOWER({c})", f"UPPER({c})", f"SUBSTR({c}, 1, 3)", f"LEFT({c}, 2)", f"RIGHT({c}, 3)",
            f"REPLACE({c}, 'a', 'x')", f"{c} || '-' || {other}", f"CONCAT({c}, '_', {other})",
            f"LPAD({c}, 12, '*')", f"RPAD({c}, 12, '.')", f"TRIM({c})", f"REVERSE({c})",
            f"SPLIT_PART({c}, '_', 1)", f"COALESCE({c}, 'none')",
        ])

    def text_number(self, t, a=None):
        c = self.col(a, self.pick(self.s.of(t, "text")))
        return self.pick([f"LENGTH({c})", f"STRPOS({c}, 'a')", f"POSITION('e' IN {c})", f"CHAR_LENGTH({c})"])

    def time_expr(self, t, a=None):
        c = self.col(a, self.pick(self.s.of(t, "time")))
        kind = self.r.randrange(8)
        if kind == 0:
            f = self.pick(["YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "DOW", "DOY", "QUARTER"])
            return f"EXTRACT({f} FROM {c})"
        if kind == 1:
            return f"EXTRACT(EPOCH FROM {c})"
        if kind == 2:
            return f"CAST({c} AS DATE)"
        if kind == 3:
            return f"date_trunc('{self.pick(['hour', 'day', 'month'])}', {c})"
        if kind == 4:
            return f"{c} + INTERVAL '{self.pick([1, 8, 24])} hours'"
        if kind == 5:
            return f"strftime({c}, '%Y-%m-%d %H:00')"
        if kind == 6:
            return f"EXTRACT(HOUR FROM {c} + INTERVAL '8 hours')"
        return c

    def aggregate(self, t, a=None):
        nums = self.s.of(t, "int", "float")
        c = self.col(a, self.pick(nums))
        kind = self.r.randrange(16)
        if kind == 0:
            return "COUNT(*)"
        if kind == 1:
            return f"COUNT({self.col(a, self.pick(self.s.cols[t]))})"
        if kind == 2:
            return f"COUNT(DISTINCT {self.col(a, self.pick(self.s.of(t, 'text')))})"
        if kind == 3:
            return f"SUM({c})"
        if kind == 4:
            return f"AVG({c})"
        if kind == 5:
            return f"MIN({self.col(a, self.pick(self.s.cols[t]))})"
        if kind == 6:
            return f"MAX({self.col(a, self.pick(self.s.cols[t]))})"
        if kind == 7:
            q = self.pick([0.1, 0.25, 0.5, 0.9, 0.99])
            return f"percentile_cont({q}) WITHIN GROUP (ORDER BY {c})"
        if kind == 8:
            return f"quantile_cont({c}, {self.pick([0.5, 0.75, 0.95])})"
        if kind == 9:
            return f"median({c})"
        if kind == 10:
            return f"percentile_disc({self.pick([0.3, 0.5, 0.9])}) WITHIN GROUP (ORDER BY {c})"
        if kind == 11:
            return f"{self.pick(['STDDEV', 'VAR_SAMP', 'STDDEV_POP', 'VAR_POP'])}({c})"
        if kind == 12:
            return f"SUM(CASE WHEN {self.predicate(t, a)} THEN 1 ELSE 0 END)"
        if kind == 13:
            return f"COUNT(*) FILTER (WHERE {self.predicate(t, a)})"
        if kind == 14:
            other = self.col(a, self.pick(nums))
            function = self.pick(["CORR", "COVAR_SAMP", "COVAR_POP"])
            if function == "CORR":
                self.tags.add("corr")
            return f"{function}({c}, {other})"
        return f"SUM({c}) * 1.0 / NULLIF(COUNT(*), 0)"

    def key(self, t, a=None):
        """A GROUP BY key: a text column, a bin of a number, or a calendar field."""
        kind = self.r.randrange(5)
        if kind <= 1:
            return self.col(a, self.pick(self.s.of(t, "text")))
        if kind == 2 and self.s.of(t, "time"):
            c = self.col(a, self.pick(self.s.of(t, "time")))
            return self.pick([f"EXTRACT(HOUR FROM {c})", f"CAST({c} AS DATE)", f"EXTRACT(DOW FROM {c})"])
        if kind == 3:
            c = self.col(a, self.pick(self.s.of(t, "int", "float")))
            edges = sorted({float(self.number(t, self.pick(self.s.of(t, 'int', 'float')))) for _ in range(2)})
            edge = edges[0] if edges else 1
            return f"CASE WHEN {c} IS NULL THEN 'none' WHEN {c} < {edge} THEN 'low' ELSE 'high' END"
        ints = self.s.of(t, "int")
        if ints:
            return self.col(a, self.pick(ints))
        return self.col(a, self.pick(self.s.of(t, "text")))

    # ---- whole queries; each returns (select list, from-and-rest); ordered by every column
    def finish(self, items, rest, limit=True):
        cols = ", ".join(f"{e} AS c{i + 1}" for i, e in enumerate(items))
        order = ", ".join(str(i + 1) for i in range(len(items)))
        lim = f" LIMIT {self.pick([10, 25, 50])}" if limit and self.r.random() < 0.6 else ""
        return f"SELECT {cols} {rest} ORDER BY {order}{lim}"

    def any_expr(self, t, a=None):
        """A number, text or time expression (only the one chosen is built: it may add tags)."""
        makers = [self.num_expr, self.text_expr, self.text_number] + ([self.time_expr] if self.s.of(t, "time") else [])
        return self.pick(makers)(t, a)

    def filter_listing(self):
        t = self.pick(Schema.TABLES)
        items = [self.any_expr(t) for _ in range(self.r.randint(1, 4))]
        return self.finish(items, f"FROM {t}{self.where(t)}")

    def time_filter(self):
        t = self.pick([x for x in Schema.TABLES if self.s.of(x, "time")])
        c = self.pick(self.s.of(t, "time"))
        lo, hi = sorted([self.time_literal(t, c), self.time_literal(t, c)])
        cond = self.pick([f"{ident(c)} >= {lo}", f"{ident(c)} BETWEEN {lo} AND {hi}", f"{ident(c)} < {hi}"])
        key = self.key(t)
        return self.finish([key, "COUNT(*)"], f"FROM {t} WHERE {cond} GROUP BY 1", limit=False)

    def group_by(self):
        t = self.pick(Schema.TABLES)
        keys = [self.key(t) for _ in range(self.r.choice([1, 1, 2]))]
        aggs = [self.aggregate(t) for _ in range(self.r.randint(1, 3))]
        group = ", ".join(str(i + 1) for i in range(len(keys)))
        having = f" HAVING COUNT(*) > {self.pick([1, 2, 5, 10])}" if self.r.random() < 0.3 else ""
        return self.finish(keys + aggs, f"FROM {t}{self.where(t)} GROUP BY {group}{having}")

    def whole_aggregate(self):
        t = self.pick(Schema.TABLES)
        aggs = [self.aggregate(t) for _ in range(self.r.randint(1, 4))]
        return self.finish(aggs, f"FROM {t}{self.where(t)}", limit=False)

    JOINS = [
        ("philly_jobs", "p", "philly_attempts", "a", "a.job_id = p.job_id"),
        ("jobs", "j", "philly_jobs", "p", "j.job_id = p.job_id AND j.trace = 'philly'"),
        ("pai_instances", "i", "pai_tasks", "k", "i.job_name = k.job_name AND i.task_name = k.task_name"),
        ("pai_sensors", "s", "pai_machines", "m", "s.machine = m.machine"),
        ("pai_instances", "i", "pai_machines", "m", "i.machine = m.machine"),
        ("helios_jobs", "h", "jobs", "j", "j.trace = 'helios' AND j.job_id = CAST(h.job_id AS VARCHAR)"),
    ]

    def join(self):
        t1, a1, t2, a2, on = self.pick(self.JOINS)
        kind = self.pick(["JOIN", "JOIN", "LEFT JOIN"])
        rest = f"FROM {t1} AS {a1} {kind} {t2} AS {a2} ON {on}{self.where(t1, a1)}"
        if self.r.random() < 0.6:
            keys = [self.key(t1, a1)]
            aggs = [self.aggregate(t2, a2), self.aggregate(t1, a1)]
            return self.finish(keys + aggs, rest + " GROUP BY 1")
        items = [self.text_expr(t1, a1), self.num_expr(t2, a2)]
        return self.finish(items, rest)

    def using_join(self):
        """Joins on a column of one name: USING, NATURAL, and the ON form for the outer ones."""
        kind = self.pick(["JOIN", "LEFT JOIN", "RIGHT JOIN", "FULL JOIN"])
        form = self.pick(["USING (job_id)", "USING (job_id)", "ON"])
        a = "(SELECT job_id, vc, gpus FROM philly_jobs WHERE gpus > 1) AS p"
        b = "(SELECT job_id, attempt, run_s FROM philly_attempts WHERE attempt > 1) AS t"
        if form == "ON":
            key = "COALESCE(p.job_id, t.job_id)" if kind == "FULL JOIN" else "t.job_id" if kind == "RIGHT JOIN" \
                else "p.job_id"
            return self.finish([key, "p.vc", "t.attempt"], f"FROM {a} {kind} {b} ON p.job_id = t.job_id")
        return self.finish(["job_id", "vc", "attempt"], f"FROM {a} {kind} {b} {form}")

    def frame_window(self):
        """Window frames and value functions."""
        t = self.pick(["philly_jobs", "helios_jobs", "jobs"])
        part = ident(self.pick(self.s.of(t, "text")))
        num = ident(self.pick(self.s.of(t, "int", "float")))
        ids = ", ".join(ident(c) for c in self.s.of(t, "text"))
        frame = self.pick(["ROWS BETWEEN 2 PRECEDING AND CURRENT ROW", "ROWS BETWEEN 1 PRECEDING AND 1 FOLLOWING",
                           "ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING",
                           "RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"])
        order = f"ORDER BY {num}, {ids}"
        w = self.pick([f"SUM({num}) OVER (PARTITION BY {part} {order} {frame})",
                       f"AVG({num}) OVER (PARTITION BY {part} {order} {frame})",
                       f"MAX({num}) OVER (PARTITION BY {part} {order} {frame})",
                       f"FIRST_VALUE({num}) OVER (PARTITION BY {part} {order} {frame})",
                       f"LAST_VALUE({num}) OVER (PARTITION BY {part} {order} {frame})",
                       f"NTILE(4) OVER (PARTITION BY {part} {order})",
                       f"CUME_DIST() OVER (PARTITION BY {part} ORDER BY {num})",
                       f"PERCENT_RANK() OVER (PARTITION BY {part} ORDER BY {num})",
                       f"COUNT({num}) OVER (PARTITION BY {part} ORDER BY {num} NULLS FIRST)"])
        return self.finish([part, num, w], f"FROM {t}{self.where(t)}")

    def grouping_sets(self):
        t = self.pick(["jobs", "helios_jobs", "philly_jobs", "pai_instances"])
        a, b = [ident(c) for c in self.r.sample(self.s.of(t, "text"), 2)]
        grouping = self.pick([f"ROLLUP ({a}, {b})", f"CUBE ({a}, {b})", f"GROUPING SETS (({a}), ({b}), ())"])
        return self.finish([a, b, "COUNT(*)"], f"FROM {t}{self.where(t)} GROUP BY {grouping}", limit=False)

    def distinct_tests(self):
        t = self.pick(Schema.TABLES)
        c = self.pick(self.s.of(t, "text"))
        v = self.text_value(t, c)
        test = self.pick([f"{ident(c)} IS DISTINCT FROM {v}", f"{ident(c)} IS NOT DISTINCT FROM {v}",
                          f"NOT ({ident(c)} = {v})", f"{ident(c)} = {v} IS NOT TRUE"])
        return self.finish([self.key(t), "COUNT(*)"], f"FROM {t} WHERE {test} GROUP BY 1", limit=False)

    def subquery(self):
        t1, a1, t2, a2, on = self.pick(self.JOINS)
        inner = self.predicate(t2, a2)
        kind = self.r.randrange(4)
        if kind == 0:
            cond = f"EXISTS (SELECT 1 FROM {t2} AS {a2} WHERE {on} AND {inner})"
        elif kind == 1:
            cond = f"NOT EXISTS (SELECT 1 FROM {t2} AS {a2} WHERE {on} AND {inner})"
        else:
            shared = [c for c in self.s.of(t1, "text") if c in self.s.of(t2, "text")]
            c = self.pick(shared or ["job_id"])
            neg = "NOT " if kind == 3 else ""
            if c not in self.s.cols[t1] or c not in self.s.cols[t2]:
                cond = f"EXISTS (SELECT 1 FROM {t2} AS {a2} WHERE {on})"
            else:
                cond = f"{a1}.{ident(c)} {neg}IN (SELECT {a2}.{ident(c)} FROM {t2} AS {a2} WHERE {inner})"
        items = [self.key(t1, a1), "COUNT(*)"]
        return self.finish(items, f"FROM {t1} AS {a1} WHERE {cond} GROUP BY 1")

    def scalar_subquery(self):
        t = self.pick(Schema.TABLES)
        c = ident(self.pick(self.s.of(t, "int", "float")))
        key = self.key(t)
        rest = f"FROM {t} WHERE {c} > (SELECT AVG({c}) FROM {t}) GROUP BY 1"
        return self.finish([key, "COUNT(*)"], rest, limit=False)

    def window(self):
        t = self.pick(Schema.TABLES)
        part = ident(self.pick(self.s.of(t, "text")))
        num = ident(self.pick(self.s.of(t, "int", "float")))
        ids = self.s.of(t, "text")
        tie = ", ".join(ident(c) for c in ids)
        kind = self.r.randrange(7)
        if kind == 0:
            w = f"ROW_NUMBER() OVER (PARTITION BY {part} ORDER BY {num}, {tie})"
        elif kind == 1:
            w = f"{self.pick(['RANK', 'DENSE_RANK'])}() OVER (PARTITION BY {part} ORDER BY {num})"
        elif kind == 2:
            w = f"SUM({num}) OVER (PARTITION BY {part} ORDER BY {num}, {tie})"
        elif kind == 3:
            w = f"{self.pick(['LAG', 'LEAD'])}({num}) OVER (PARTITION BY {part} ORDER BY {num}, {tie})"
        elif kind == 4:
            w = f"AVG({num}) OVER (PARTITION BY {part})"
        elif kind == 5:
            w = f"COUNT(*) OVER (PARTITION BY {part} ORDER BY {num})"
        else:
            w = f"{num} - MIN({num}) OVER (PARTITION BY {part})"
        return self.finish([part, num, w], f"FROM {t}{self.where(t)}")

    def grouped_window(self):
        t = self.pick(Schema.TABLES)
        key = self.key(t)
        kind = self.r.randrange(3)
        if kind == 0:
            w = "COUNT(*) * 100.0 / SUM(COUNT(*)) OVER ()"
        elif kind == 1:
            w = "RANK() OVER (ORDER BY COUNT(*) DESC)"
        else:
            num = ident(self.pick(self.s.of(t, "int", "float")))
            w = f"SUM(SUM({num})) OVER (ORDER BY 1)"
        return self.finish([key, "COUNT(*)", w], f"FROM {t} GROUP BY 1", limit=False)

    def cte(self):
        t = self.pick(Schema.TABLES)
        key = self.key(t)
        agg = self.aggregate(t)
        base = f"WITH g AS (SELECT {key} AS k, COUNT(*) AS n, {agg} AS v FROM {t}{self.where(t)} GROUP BY 1)"
        kind = self.r.randrange(3)
        if kind == 0:
            return base + " " + self.finish(["k", "n", "v", "n * 100.0 / SUM(n) OVER ()"], "FROM g")
        if kind == 1:
            return base + " " + self.finish(["k", "n"], f"FROM g WHERE n > (SELECT AVG(n) FROM g)")
        return base + ", h AS (SELECT k, v FROM g WHERE v IS NOT NULL) " + self.finish(
            ["g.k", "g.n", "h.v"], "FROM g LEFT JOIN h ON g.k = h.k")

    def set_operation(self):
        t = self.pick(Schema.TABLES)
        c = ident(self.pick(self.s.of(t, "text")))
        op = self.pick(["UNION", "UNION ALL", "EXCEPT", "INTERSECT", "EXCEPT ALL", "INTERSECT ALL"])
        left = f"SELECT {c} AS c1 FROM {t}{self.where(t)}"
        right = f"SELECT {c} AS c1 FROM {t}{self.where(t)}"
        return f"{left} {op} {right} ORDER BY 1"

    def null_order(self):
        t = self.pick(Schema.TABLES)
        c = ident(self.pick(self.s.cols[t]))
        ids = ", ".join(ident(x) for x in self.s.of(t, "text"))
        d = self.pick(["", " DESC", " ASC"])
        return f"SELECT {c} AS c1 FROM {t} ORDER BY {c}{d}, {ids} LIMIT {self.pick([5, 20, 60])}"

    def distinct(self):
        t = self.pick(Schema.TABLES)
        items = [self.pick([self.text_expr, self.key])(t) for _ in range(self.r.randint(1, 2))]
        cols = ", ".join(f"{e} AS c{i + 1}" for i, e in enumerate(items))
        order = ", ".join(str(i + 1) for i in range(len(items)))
        return f"SELECT DISTINCT {cols} FROM {t}{self.where(t)} ORDER BY {order}"

    SHAPES = ["filter_listing", "time_filter", "group_by", "group_by", "whole_aggregate", "join", "join",
              "using_join", "subquery", "scalar_subquery", "window", "frame_window", "grouped_window", "cte",
              "set_operation", "null_order", "distinct", "grouping_sets", "distinct_tests"]


def generate(schema, seed, count):
    rng = random.Random(seed)
    out = []
    for n in range(count):
        g = Gen(schema, rng)
        shape = rng.choice(Gen.SHAPES)
        sql = getattr(g, shape)()
        out.append({"id": f"q{n + 1:04d}", "shape": shape, "sql": sql, "tags": sorted(g.tags)})
    return out


def duckdb_connection(store):
    """DuckDB over the store, answering as PostgreSQL does where its defaults differ (check_queries)."""
    return check_queries.connect(store)


def run_duckdb(con, sql, timeout):
    timer = threading.Timer(timeout, con.interrupt)
    timer.start()
    try:
        cur = con.execute(sql)
        return [d[0] for d in cur.description], cur.fetchall(), None
    except duckdb.Error as e:
        return None, None, str(e).splitlines()[0]
    finally:
        timer.cancel()


def run_tracelab(binary, store, sql_file, timeout):
    try:
        p = subprocess.run([binary, "query", "--store", store, "-f", sql_file, "--format", "csv"],
                           capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "timeout", "", ""
    return p.returncode, p.stdout, p.stderr


def judge(q, out_dir, t_result, d_result):
    code, stdout, stderr = t_result
    cols, rows, d_err = d_result
    if code == "timeout":
        return "FAILURE", f"tracelab over the time limit"
    if code not in (0, 1):
        return "FAILURE", f"tracelab exit code {code}: {stderr.strip()[-300:]}"
    known = [KNOWN[t] for t in q["tags"] if t in KNOWN]
    if code == 1:
        if d_err is not None:
            return "both refuse", ""
        reason = next((text for piece, text in KNOWN_REFUSALS if piece in stderr), None)
        if reason:
            return "documented", reason
        return "FAILURE", f"tracelab refuses what DuckDB answers: {stderr.strip()[:400]}"
    if d_err is not None:
        return "FAILURE", f"DuckDB refuses what tracelab answers: {d_err[:300]}"
    csv_path = out_dir / f"{q['id']}.csv"
    csv_path.write_text(stdout)
    problems = check_queries.compare(q["id"], cols, rows, csv_path, True)
    if not problems:
        return "agree", ""
    for text, explains in known:
        if all(explains(p) for p in problems):
            return "documented", text
    return "FAILURE", "; ".join(problems[:3])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tracelab")
    ap.add_argument("store", type=Path)
    ap.add_argument("out", type=Path)
    ap.add_argument("--count", type=int, default=1500)
    ap.add_argument("--seed", type=int, default=35)
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--readme", type=Path, default=Path(__file__).resolve().parents[2] / "queries/README.md")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    readme = args.readme.read_text()
    missing = [text for text in [t for t, _ in KNOWN.values()] + [t for _, t in KNOWN_REFUSALS] if text not in readme]
    if missing:
        sys.exit(f"queries/README.md does not document: {missing}")
    con = duckdb_connection(args.store)
    corpus = generate(Schema(con), args.seed, args.count)
    for q in corpus:
        (args.out / f"{q['id']}.sql").write_text(q["sql"] + "\n")
    # DuckDB in this process, one query at a time; tracelab in processes of their own, --jobs at a time.
    duck = {q["id"]: run_duckdb(con, q["sql"], args.timeout) for q in corpus}
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        runs = pool.map(lambda q: run_tracelab(args.tracelab, str(args.store), str(args.out / f"{q['id']}.sql"),
                                               args.timeout), corpus)
        for q, t in zip(corpus, runs):
            q["outcome"], q["why"] = judge(q, args.out, t, duck[q["id"]])
    (args.out / "corpus.json").write_text(json.dumps(corpus, indent=1))
    counts = {}
    for q in corpus:
        counts[q["outcome"]] = counts.get(q["outcome"], 0) + 1
    by_reason = {}
    for q in corpus:
        if q["outcome"] == "documented":
            by_reason[q["why"]] = by_reason.get(q["why"], 0) + 1
    failures = [q for q in corpus if q["outcome"] == "FAILURE"]
    for q in failures[:40]:
        print(f"FAILURE {q['id']} ({q['shape']}): {q['why']}\n    {q['sql']}")
    print(f"{len(corpus)} queries (seed {args.seed}): " + ", ".join(f"{k} {v}" for k, v in sorted(counts.items())))
    for reason, n in sorted(by_reason.items()):
        print(f"  documented {n}: {reason}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
