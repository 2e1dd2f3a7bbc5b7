"""One front door for every input: :func:`load` picks the reader from the path (or ``format=``).

===================  ==========================================================
format               what it reads
===================  ==========================================================
``outcomes``         a compact ``bayeseval-outcomes/1`` JSON file
``long``             a long table: CSV / TSV / JSONL / JSON records / Parquet
``wide``             a wide per-model CSV (question id, then one column per trial)
``model-columns``    one column per model, rows ``q`` / ``q.1`` / ``q.2`` (question.run,
                     MathArena's layout) or a question and a run (``trial``) column
``aisbench``         an AISBench output folder (or one results JSON)
``opencompass``      an OpenCompass output folder (or one results JSON)
``lm-eval``          lm-evaluation-harness ``samples_*.jsonl`` (file or folder)
``inspect``          an inspect_ai eval log
===================  ==========================================================

``format="auto"`` (the default) asks :func:`bayeseval.io.detect.detect` about
folders and tool outputs, reads ``.json`` files that declare
``bayeseval-outcomes/1`` as outcome files, and treats other tables as long
tables when they have the question column and a score, model or trial column,
as models in columns when the rows are ``question.run`` ids (or a question and a
trial column come without score and model columns; the loader then says what it
found), else as wide CSV.  Row ids that look like ``question.run`` without that
layout are an error naming the choices.  A CSV/TSV header with a score, model or trial column but no
question column is an error that names the column options (a long table with
other column names; ``columns=`` / CLI ``--question-col`` etc.), and a failed
wide read says why the file was read as wide.  Several paths give one merged
:class:`OutcomeSet`.
"""

from __future__ import annotations

import inspect
import re
import sys
from pathlib import Path
from typing import Any, Iterable

from .outcomes import FORMAT, read_outcomes
from .outcomeset import OutcomeSet
from .tables import from_long, read_long, read_model_columns, read_wide, split_run_ids

__all__ = ["load", "FORMATS", "ENGINES"]

FORMATS = ("auto", "outcomes", "long", "wide", "model-columns", "aisbench", "opencompass", "lm-eval", "inspect")
_TABLE_SUFFIXES = {".csv", ".tsv", ".jsonl", ".ndjson", ".parquet", ".pq", ".json"}
_COLUMN_KEYS = ("model", "question", "trial", "score", "dataset")


def _declares_outcomes(path: Path) -> bool:
    if path.suffix.lower() != ".json":
        return False
    with path.open("rb") as fh:
        head = fh.read(4096).decode("utf-8", errors="replace")
    return FORMAT in head and '"format"' in head


def _header(path: Path) -> list[str]:
    """The header cells of a CSV / TSV file ([] when unreadable; the readers then say why)."""
    import csv

    try:
        with path.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
            for row in csv.reader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ","):
                if row and any(c.strip() for c in row):
                    return [h.strip() for h in row]
    except (OSError, csv.Error):
        pass
    return []


def _header_roles(path: Path, header: list[str], columns: dict) -> dict:
    """``columns`` completed from a CSV/TSV header: a role left at its default name (``question``) that the header
    spells in another case (``Question``), the only such cell, is that column.  A header of one cell that holds
    semicolons, tabs or pipes is an error: the file is not separated as its name says."""
    if len(header) == 1:
        for sep, name in ((";", "semicolon"), ("\t", "tab"), ("|", "pipe")):
            if sep in header[0] and sep != ("\t" if path.suffix.lower() == ".tsv" else ","):
                raise ValueError(f"{path}: the header {header[0]!r} is one column: the file looks {name}-separated; "
                                 "bayeseval reads comma-separated .csv and tab-separated .tsv files")
    out = dict(columns)
    for k in _COLUMN_KEYS:
        if k in out or k in header:
            continue
        same = [h for h in header if h.strip().lower() == k]
        if len(same) == 1:
            out[k] = same[0]
    return out


def _looks_long(path: Path, header: list[str], columns: dict) -> bool:
    """Does a CSV/TSV header hold the long table's question column and its score, model or trial column?

    A header with a score, model or trial column but no question column is a long table whose question
    column has another name: an error that names the flags, not a wide-table misreading.
    """
    if path.suffix.lower() not in (".csv", ".tsv"):
        return True
    names = {k: columns.get(k, k) for k in ("question", "score", "model", "trial")}
    others = [names[k] for k in ("score", "model", "trial") if names[k] in header]
    if names["question"] in header:
        return bool(others)
    if others and (names["model"] in header or names["trial"] in header or len(header) > 2):  # "id,score": wide
        raise ValueError(f"{path}: looks like a long table (it has the column{'s' if len(others) > 1 else ''} "
                         f"{', '.join(map(repr, others))}) but has no question column {names['question']!r}; "
                         f"columns are {header}: name the columns with columns={{'question': NAME, ...}} "
                         "(CLI --question-col NAME; also --model-col, --score-col, --trial-col), or pass "
                         "format='wide' (CLI --input-format wide) for a wide table")
    return False


def _first_column(path: Path, j: int = 0) -> list[str]:
    """The non-empty cells of column ``j`` (the first by default) below the header."""
    import csv

    out = []
    try:
        with path.open(encoding="utf-8-sig", errors="replace", newline="") as fh:
            rows = csv.reader(fh, delimiter="\t" if path.suffix.lower() == ".tsv" else ",")
            next(rows, None)
            out = [r[j].strip() for r in rows if len(r) > j and r[j].strip()]
    except (OSError, csv.Error):
        pass
    return out


_NUMBERED = re.compile(r"^(.*?)(\d+)$")


def _trial_like(headers: list[str]) -> bool:
    """Do these column names read as a wide table's trials: numbers with one common prefix (``0, 1, 2``, ``t0,
    t1``, ``trial_1, trial_2``) or no name at all?  Model names (``gpt-4o, claude-3``) do not."""
    prefixes, numbers = set(), []
    for h in headers:
        h = str(h).strip()
        if not h or h.startswith("Unnamed:"):
            continue
        m = _NUMBERED.match(h)
        if m is None:
            return False
        prefixes.add(m[1].strip().lower())
        numbers.append(int(m[2]))
    return len(prefixes) <= 1 and len(set(numbers)) == len(numbers)


def _check_wide_columns(path: Path, header: list[str], columns: dict) -> None:
    """A file guessed to be wide whose trial columns are not numbered (``id,gpt-4o,claude-3``) could as well hold
    one column per model: an error that names both readings."""
    if path.suffix.lower() not in (".csv", ".tsv"):
        return
    q = columns.get("question")
    body = [h for j, h in enumerate(header) if (h != q if q in header else j != 0)]
    if len(body) >= 2 and not _trial_like(body):
        shown = ", ".join(map(repr, body[:4])) + (", ..." if len(body) > 4 else "")
        raise ValueError(f"{path}: ambiguous layout: the columns {shown} are not numbered trials (0, 1, ... or t0, "
                         "t1, ...): pass format='wide' (CLI --input-format wide: one model, the file's name; rows are "
                         "questions, columns are its trials) or format='model-columns' (CLI --input-format "
                         "model-columns: one column per model, one run per question unless the rows are q.run ids "
                         "or --trial-col names a run column); a long table (one row per trial) needs its columns named: "
                         "columns={'question': NAME, 'model': NAME, 'score': NAME} (CLI --question-col NAME "
                         "--model-col NAME --score-col NAME)")


def _model_columns_layout(path: Path, header: list[str], columns: dict) -> dict | None:
    """Does a CSV/TSV hold one column per model (rows = question x run)?  ``{}`` / ``{"trial": col}`` if so.

    Two signs: a question and a trial (run) column with neither a score nor a model column, or row ids
    ``q``, ``q.1``, ``q.2`` (MathArena's layout).  Row ids with ``.r`` suffixes that do not follow that
    layout are ambiguous: an error that names the choices.
    """
    if path.suffix.lower() not in (".csv", ".tsv"):
        return None
    if len(header) < 2:
        return None
    names = {k: columns.get(k, k) for k in ("question", "score", "model", "trial")}
    if names["question"] in header and names["trial"] in header and names["score"] not in header \
            and names["model"] not in header and len(header) >= 3:
        return {"question": names["question"], "trial": names["trial"]}
    if names["score"] in header or names["model"] in header:
        return None
    qcol = names["question"] if names["question"] in header else None
    if _trial_like([h for j, h in enumerate(header) if j != (header.index(qcol) if qcol else 0)]):
        return None  # t0, t1, ... or 1, 2, ...: a wide table's trials, not models
    ids = _first_column(path, header.index(qcol) if qcol else 0)
    if ids and split_run_ids(ids) is not None:
        return {"question": qcol} if qcol else {}
    if ids and sum(bool(re.fullmatch(r".+\.\d+", i)) for i in ids) > len(ids) / 2:
        raise ValueError(f"{path}: ambiguous layout: the row ids look like 'question.run' ({ids[:3]} ...) but do "
                         "not follow q, q.1, q.2, ...; pass format='wide' (CLI --input-format wide: one model, "
                         "rows are questions, columns are trials) or format='model-columns' with "
                         "columns={'trial': NAME} (CLI --input-format model-columns --trial-col NAME: columns are "
                         "models)")
    return None


_WIDE_HINT = ("; read as a wide table (a question id column, then one column per trial) because the header has "
              "no {q!r} column with a {s!r} or {m!r} column: for a long table (one row per trial) name its columns "
              "with columns={{'question': NAME, 'model': NAME, 'score': NAME}} (CLI --question-col NAME "
              "--model-col NAME --score-col NAME)")


def _vendor(fmt: str):
    if fmt == "aisbench":
        from .aisbench import read_aisbench as reader
    elif fmt == "opencompass":
        from .opencompass import read_opencompass as reader
    elif fmt == "lm-eval":
        from .lm_eval import read_lm_eval as reader
    else:
        from .inspect_ai import read_inspect as reader
    return reader


#: ``Run.meta["order"]`` of a run read from a ``bayeseval run`` folder: its rows are in the order the run drew them
RUN_ORDER = "drawn by bayeseval run"


def _run_outcomes(folder: Path) -> OutcomeSet | None:
    """A ``bayeseval run`` folder's outcomes as the run wrote them (``outcomes.json``, or ``outcomes.csv`` of scores
    in [0, 1] when the scorer gave partial credit): failed samples missing, not wrong, the questions in the order the
    run drew them.  The AISBench work dir in the same folder counts a failed sample as wrong and holds no partial
    credit; it is read only when asked for (``format="aisbench"``).  None before any question is complete."""
    if (folder / "outcomes.json").is_file() and (folder / "outcomes.csv").is_file():
        raise ValueError(f"{folder}: holds both outcomes.json and outcomes.csv; a run resumed by an earlier bayeseval "
                         "kept the one it no longer wrote: delete the older of the two")
    if (folder / "outcomes.json").is_file():
        out = read_outcomes(folder / "outcomes.json")
    elif (folder / "outcomes.csv").is_file():
        out = read_long(folder / "outcomes.csv", score_range=(0.0, 1.0))
    else:
        return None
    for run in out:
        run.meta["order"] = RUN_ORDER
    return out


def _load_one(path: Path, fmt: str, columns: dict, options: dict) -> OutcomeSet:
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such file or folder")
    if path.is_dir() and fmt in ("outcomes", "long", "wide"):
        raise ValueError(f"{path}: is a folder, expected a file for format={fmt!r}")
    guessed_wide = False
    tabled = bool(columns) and path.is_file() and path.suffix.lower() in _TABLE_SUFFIXES  # columns name a table's
    header = _header(path) if path.is_file() and path.suffix.lower() in (".csv", ".tsv") else []  # read once
    if fmt in ("auto", "long", "wide", "model-columns") and header:
        columns = _header_roles(path, header, columns)
    if fmt == "auto" and path.is_file() and _declares_outcomes(path):
        fmt = "outcomes"
    if fmt == "auto" and path.is_dir() and (path / "run.json").is_file():
        own = _run_outcomes(path)  # a `bayeseval run` folder: its own outcome file, not the AISBench work dir beside it
        if own is None:
            work_dir = (path / "predictions").is_dir()
            raise ValueError(f"{path}: a bayeseval run folder with no outcome file (outcomes.json or outcomes.csv is "
                             "written when a run session ends, so an interrupted session leaves none): run the same "
                             "bayeseval run command on this folder again; it asks only for the samples still missing "
                             "(none: it does not query the server) and writes the file"
                             + ("; its AISBench work dir, which counts a failed sample as wrong, is read with "
                                "format='aisbench' (CLI --input-format aisbench)" if work_dir else ""))
        if columns:
            raise ValueError(f"{path}: column names ({', '.join(f'{k}={v!r}' for k, v in columns.items())}) apply "
                             "to tables; this is a bayeseval run folder, read from its outcome file: leave them out")
        return own
    if fmt == "auto":
        from .detect import detect

        fmt = "" if tabled else (detect(path) or "")  # columns given: a table, whatever its fields resemble
        if not fmt:
            if path.is_dir():
                raise ValueError(f"{path}: a folder, but not an AISBench, OpenCompass or lm-eval output folder; "
                                 "pass the files inside it, or format=")
            if path.suffix.lower() in _TABLE_SUFFIXES:
                layout = _model_columns_layout(path, header, columns)
                if layout is not None:
                    fmt, columns = "model-columns", {**columns, **layout}
                else:
                    fmt = "long" if _looks_long(path, header, columns) else "wide"
                    guessed_wide = fmt == "wide"
            else:
                raise ValueError(f"{path}: cannot tell the format from the name; pass format= one of {FORMATS[1:]}")
    if fmt not in ("long", "wide", "model-columns") and columns:  # named columns of a layout that has none
        raise ValueError(f"{path}: column names ({', '.join(f'{k}={v!r}' for k, v in columns.items())}) apply to "
                         f"tables (long, wide or model-columns layouts); this input is read as {fmt}, whose layout is "
                         "fixed: leave them out")
    if fmt == "outcomes":
        return read_outcomes(path)
    truncated = {"allow_truncated": bool(options["allow_truncated"])} if "allow_truncated" in options else {}
    if options.get("score_range") is not None:  # tables read their cells as scores in this range
        truncated["score_range"] = options["score_range"]
    if fmt == "long":
        return read_long(path, **truncated, **columns)
    if fmt == "model-columns":
        opts = {k: columns[k] for k in ("question", "dataset") if k in columns}
        if "run" in columns or "trial" in columns:
            opts["run"] = columns.get("run", columns.get("trial"))
        elif "trial" in header and columns.get("question", "question") in header:  # as detection reads it
            opts["run"] = "trial"
        return read_model_columns(path, **truncated, **opts)
    if fmt == "wide":
        wide = {k: v for k, v in columns.items() if k in ("model", "dataset", "question")}
        try:
            out = read_wide(path, **truncated, **wide)
        except ValueError as exc:
            if not guessed_wide or not any(k in str(exc) for k in ("question id", "must be a number")):
                raise
            q, sc, m = (columns.get(k, k) for k in ("question", "score", "model"))
            raise ValueError(str(exc) + _WIDE_HINT.format(q=q, s=sc, m=m)) from None
        if guessed_wide:
            _check_wide_columns(path, header, columns)
        return out
    if fmt in FORMATS:
        reader = _vendor(fmt)
        accepted = inspect.signature(reader).parameters
        return reader(path, **{k: v for k, v in options.items() if k in accepted})
    raise ValueError(f"format must be one of {FORMATS}, got {fmt!r}")


#: keyword arguments of load() that some reader takes (the others ignore them); the tables take the first two
_TABLE_OPTIONS = ("allow_truncated", "score_range")


def _reader_options() -> set:
    """Every keyword argument that a tool reader takes (besides the path)."""
    names = set(_TABLE_OPTIONS)
    for fmt in ("aisbench", "opencompass", "lm-eval", "inspect"):
        params = list(inspect.signature(_vendor(fmt)).parameters.values())[1:]
        names |= {p.name for p in params if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)}
    return names


def _check_options(options: dict) -> None:
    known = _reader_options()
    unknown = sorted(set(options) - known)
    if unknown:
        raise TypeError(f"load() got unknown keyword argument(s) {unknown}; the readers take {sorted(known)} (and "
                        "format=, columns=, engine=, progress=)")


ENGINES = ("auto", "duckdb", "spark", "pandas")
_SPARK_READERS = {".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "csv", ".json": "json",
                  ".jsonl": "json", ".ndjson": "json"}


def _spark_table(path: str):
    """A file, glob or folder read by Spark (``SparkSession.builder.getOrCreate()``: a session already running in
    this process, or one configured by ``spark-submit`` / ``SPARK_REMOTE`` / ``PYSPARK_SUBMIT_ARGS`` for a cluster,
    else a local one).  Spark reads and counts; only the per-question counts come back."""
    try:
        from pyspark.sql import SparkSession
    except ImportError:
        raise ImportError("engine='spark' needs pyspark and Ibis: pip install 'bayeseval[spark]' (and a Java "
                          "runtime)") from None
    spark = SparkSession.builder.appName("bayeseval").getOrCreate()
    s = str(path)
    p = Path(s)
    kind = _SPARK_READERS.get(p.suffix.lower())
    if kind is None and p.is_dir():
        kinds = {_SPARK_READERS.get(f.suffix.lower()) for f in p.rglob("*") if f.is_file()} - {None}
        kind = kinds.pop() if len(kinds) == 1 else None
    if kind is None:
        raise ValueError(f"{s}: engine='spark' reads Parquet, CSV or JSON lines (by the file extension)")
    reader = spark.read.option("header", "true").option("inferSchema", "true") if kind == "csv" else spark.read
    if kind == "csv" and p.suffix.lower() == ".tsv":
        reader = reader.option("sep", "\t")
    if kind == "parquet" and p.is_dir():
        reader = reader.option("recursiveFileLookup", "true")
    return getattr(reader, kind)(s)


def _scale_source(p: str, engine: str) -> bool:
    """Whether ``p`` is counted by the query engine: always with ``engine="duckdb"``; with ``"auto"`` a Parquet
    file, a glob or a URL (when DuckDB is installed) -- the inputs that grow to billions of rows."""
    if engine == "pandas":
        return False
    s = str(p)
    scale_like = (any(ch in s for ch in "*?[") or "://" in s or Path(s).suffix.lower() in (".parquet", ".pq")
                  or (Path(s).is_dir() and any(Path(s).rglob("*.parquet"))))
    if engine == "duckdb":
        return True
    if not scale_like:
        return False
    import importlib.util

    return importlib.util.find_spec("duckdb") is not None


def _parquet_shards(s: str) -> list[str] | None:
    """The Parquet files of a glob (``'runs/*.parquet'``) or of a folder of Parquet shards, for ``engine="pandas"``
    (which reads every row); None for any other path."""
    import glob

    if any(ch in s for ch in "*?[") and not Path(s).exists():
        files = sorted(f for f in glob.glob(s, recursive=True) if Path(f).is_file())
        if not files:
            raise FileNotFoundError(f"{s}: the pattern matches no file")
        if any(Path(f).suffix.lower() not in (".parquet", ".pq") for f in files):
            raise ValueError(f"{s}: engine='pandas' reads a pattern of Parquet shards; it matches other files too "
                             f"({next(f for f in files if Path(f).suffix.lower() not in ('.parquet', '.pq'))})")
        return files
    if Path(s).is_dir() and not (Path(s) / "run.json").is_file():
        files = sorted(str(f) for f in Path(s).rglob("*") if f.is_file() and f.suffix.lower() in (".parquet", ".pq"))
        return files or None
    return None


def _roles(columns: dict | None) -> dict:
    """The column roles a caller named, as keyword arguments of the readers (``from_long``, ``count_table``)."""
    return {k: columns[k] for k in _COLUMN_KEYS if columns and k in columns}


def _check_roles(columns: dict | None) -> None:
    """A column has one role: two keys of ``columns`` naming one column, or a given name that is another role's
    default name (``columns={'question': 'score'}`` with no ``'score'`` key), is an error."""
    if not columns:
        return
    if not isinstance(columns, dict):
        raise TypeError(f"columns must be a dict such as {{'question': 'id', 'score': 'correct'}}, got "
                        f"{type(columns).__name__}")
    for k in columns:  # every reader (files, DataFrames, DuckDB, Spark) refuses a misspelt role
        if k not in _COLUMN_KEYS:
            raise ValueError(f"columns: unknown key {k!r}; expected some of {_COLUMN_KEYS}")
    roles = {k: columns.get(k, k) for k in _COLUMN_KEYS}
    for k, v in columns.items():
        if v is None:  # a role switched off (trial=None: trials in row order)
            continue
        other = [o for o in _COLUMN_KEYS if o != k and roles.get(o) == v]
        if k in _COLUMN_KEYS and other:
            o = other[0]
            how = "is also given as" if o in columns else "is the default name of"
            raise ValueError(f"columns: column {v!r} is given as the {k} column and {how} the {o} column; a column "
                             f"has one role (name the {o} column too: columns={{'{o}': NAME}}, CLI --{o}-col NAME)")


def load(paths: str | Path | Iterable[str | Path], *, format: str = "auto", columns: dict | None = None,
         engine: str = "auto", progress: Any = None, **options: Any) -> OutcomeSet:
    """Read one or several files/folders into one :class:`OutcomeSet`.

    ``columns`` renames the long table's columns (keys ``model``, ``question``,
    ``trial``, ``score``, ``dataset``); other keyword arguments go to the tool
    reader that takes them (e.g. ``regroup=`` for AISBench, ``metric=`` for
    lm-eval, ``scorer=`` for inspect_ai, ``allow_truncated=`` for tables) and are
    ignored by the others; one that no reader takes is a TypeError.
    ``score_range=(lo, hi)`` reads every input as scores in that range (a table's
    cells as they are, a category as its weight).

    ``engine``: ``"auto"`` (default) counts Parquet files, globs (``'runs/*.parquet'``), folders of Parquet
    shards and URLs inside DuckDB (:func:`bayeseval.io.scale.count_table`: only per-question counts come back)
    and reads other tables with pandas; ``"duckdb"`` counts every table in DuckDB; ``"spark"`` has Spark read
    and count them (the same Ibis expression, on the session ``SparkSession.builder.getOrCreate()`` gives: a
    cluster's when run under ``spark-submit``); ``"pandas"`` reads every row.  ``progress``: a callable wrapping an iterable (tqdm), used when a folder or glob of shards is
    counted shard by shard.
    """
    if engine not in ENGINES:
        raise ValueError(f"engine must be one of {ENGINES}, got {engine!r}")
    _check_options(options)
    _check_roles(columns)
    pd = sys.modules.get("pandas")
    if pd is not None and isinstance(paths, pd.DataFrame):  # a long table in memory (the README lists it)
        if format not in ("auto", "long"):
            raise ValueError(f"a pandas DataFrame is read as a long table (one row per trial); format={format!r} "
                             "names a file layout: pass format='long' or leave it out")
        cols = _roles(columns)
        return from_long(paths, where="DataFrame", score_range=options.get("score_range"), **cols)
    if isinstance(paths, (str, Path)):
        paths = [paths]
    if engine == "spark":
        if format not in ("auto", "long"):
            raise ValueError(f"engine='spark' reads long tables; format={format!r} is read with engine='auto'")
        from .scale import count_table

        cols = _roles(columns)
        sets = [count_table(_spark_table(str(p)), score_range=options.get("score_range"), **cols) for p in paths]
        return sets[0].merge(*sets[1:]) if len(sets) > 1 else sets[0]
    if format in ("auto", "long") and all(_scale_source(str(p), engine) for p in paths):
        from .scale import count_shards

        cols = _roles(columns)
        sets = [count_shards(str(p), progress=progress, score_range=options.get("score_range"), **cols)
                for p in paths]
        return sets[0].merge(*sets[1:]) if len(sets) > 1 else sets[0]
    paths = list(paths)
    if not paths:
        raise ValueError("paths: give at least one file or folder")
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    columns = dict(columns or {})
    sets = []
    for p in paths:
        shards = _parquet_shards(str(p)) if engine == "pandas" and format in ("auto", "long") else None
        if shards is None:
            sets.append(_load_one(Path(p), format, columns, options))
        else:  # every row read (the exact checks), the shards as one table, as DuckDB counts them
            import pandas as pd

            table = pd.concat([pd.read_parquet(f) for f in shards], ignore_index=True)
            sets.append(from_long(table, where=str(p), score_range=options.get("score_range"), **_roles(columns)))
    out = sets[0].merge(*sets[1:]) if len(sets) > 1 else sets[0]
    # the tables read their cells as scores in score_range; every other input (a tool's folder, an outcome file)
    # is read as its layout says, then as scores in that range (a category becomes its weight), as the CLI's --scores
    return out.as_scores(options["score_range"]) if options.get("score_range") is not None else out

