"""The ``bayeseval run`` subcommand: :func:`add_parser` registers it, :func:`cmd_run` runs it.

Wiring (in ``bayeseval/cli.py``)::

    from .runner.command import add_parser as add_run_parser
    ...
    add_run_parser(sub, parents=[_common()])

``python -m bayeseval.runner`` runs the same command on its own.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from .._argtypes import error_line, level as _level, nonneg_int as _nonneg_int, positive as _positive, \
    positive_int as _positive_int
from .engine import DEFAULT_BASE_URL

__all__ = ["add_parser", "add_options", "cmd_run", "main", "EXAMPLES"]

DESCRIPTION = (
    "Sample a model behind an OpenAI-compatible endpoint (vLLM, SGLang, TGI, OpenAI: POST {base}/chat/completions) "
    "n times per question of a JSON-lines dataset, score every completion, and write a run folder: samples.jsonl "
    "(resumable: run the same command again to finish an interrupted run), bayeseval's outcome file and an "
    "AISBench-style work dir (configs/, predictions/, results/, summary/) whose summary shows bayeseval's credible "
    "intervals beside AISBench's avg@n, pass@n and cons@n. Questions are taken in a random order fixed by --seed. "
    "The API key is read from the environment variable named by --api-key-env (default OPENAI_API_KEY, none if unset).")

EXAMPLES = (
    "  vllm serve Qwen/Qwen2.5-7B-Instruct --port 8000        # in another shell\n"
    "  bayeseval run gsm8k.jsonl --model Qwen/Qwen2.5-7B-Instruct --n 5 --scorer numeric --out runs/qwen-gsm8k\n"
    "  bayeseval run aime.jsonl --n 16 --n-per-request 4 --temperature 0.6 --max-tokens 8192 --stream "
    "--scorer numeric\n"
    "  bayeseval run mcq.jsonl --scorer 'regex:answer is \\(?([A-D])' --base-url http://gpu1:8000/v1 --limit 50\n"
    "  bayeseval run tasks.jsonl --scorer my_checks.py:is_correct --api-key-env MY_KEY --concurrency 32\n"
    "  bayeseval report runs/qwen-gsm8k --metrics avg,pass@5     # the run folder reads like an AISBench work dir")


def add_options(p: argparse.ArgumentParser) -> None:
    """The ``run`` options (shared by ``bayeseval run`` and ``python -m bayeseval.runner``)."""
    p.add_argument("dataset", metavar="DATASET",
                   help='JSON-lines file, one question per line: {"id": ..., "prompt": "..." or "messages": [...], '
                        '"answer": ...}')
    g = p.add_argument_group("endpoint")
    g.add_argument("--base-url", default=DEFAULT_BASE_URL, help=f"OpenAI-compatible base URL (default {DEFAULT_BASE_URL})")
    g.add_argument("--model", help="served model name (default: the server's only model, from GET /models)")
    g.add_argument("--api-key-env", metavar="VAR", default=None,
                   help="environment variable holding the API key (default OPENAI_API_KEY; no key if unset)")
    g.add_argument("--stream", action=argparse.BooleanOptionalAction, default=False,
                   help="stream completions as server-sent events (default --no-stream)")
    g.add_argument("--concurrency", type=_positive_int, default=8, help="requests in flight (default 8)")
    g.add_argument("--timeout", type=_positive, default=600.0,
                   help="seconds without an answer (each read; streaming: between chunks) before a request is "
                        "retried (default 600); --request-timeout bounds the whole request")
    g.add_argument("--request-timeout", metavar="SECONDS", type=_positive, default=None,
                   help="total seconds one request attempt may take, however steadily the server trickles bytes "
                        "(keep-alive comments, a slow body); then it is retried like a timeout (default 3 x --timeout)")
    g.add_argument("--connect-timeout", type=_positive, default=10.0, help="seconds to connect (default 10)")
    g.add_argument("--retries", type=_nonneg_int, default=5,
                   help="retries per request on 429/5xx/connection errors/timeouts/malformed responses; then the "
                        "samples are recorded as failed (default 5)")
    g.add_argument("--backoff", type=float, default=1.0,
                   help="first backoff step in seconds, doubled per retry with jitter, capped by --max-backoff "
                        "(default 1); a 429/503 Retry-After is honoured")
    g.add_argument("--max-backoff", type=float, default=60.0, help="longest wait between retries (default 60)")
    s = p.add_argument_group("sampling")
    s.add_argument("--n", type=_positive_int, default=1, help="samples per question (default 1)")
    s.add_argument("--n-per-request", type=_positive_int, default=None,
                   help="samples asked per request with the API's n (default --n); fewer returned are asked again")
    s.add_argument("--temperature", type=float, default=1.0, help="sampling temperature (default 1.0)")
    s.add_argument("--max-tokens", type=_positive_int, default=None, help="max tokens per completion (default: server's)")
    s.add_argument("--seed", type=_nonneg_int, default=0,
                   help="seed of the random question order (default 0); not sent to the server")
    s.add_argument("--limit", type=_positive_int, default=None,
                   help="only the first N questions of the dataset (the lines after them are not checked)")
    d = p.add_argument_group("dataset and scoring")
    d.add_argument("--prompt-field", default="prompt", help="prompt field (default prompt; else 'messages')")
    d.add_argument("--answer-field", default="answer", help="gold answer field (default answer)")
    d.add_argument("--id-field", default="id", help="question id field (default id; else the line number)")
    d.add_argument("--scorer", default="exact",
                   help="exact (default), numeric (last number; #### and \\boxed{} respected), regex:PATTERN (last "
                        "match, group 1, equals the answer), path/to/file.py:function or module:function "
                        "(f(completion, answer) -> bool or score in [0, 1])")
    o = p.add_argument_group("output")
    o.add_argument("--out", metavar="FOLDER", default=None,
                   help="run folder (default runs/<dataset stem>); an existing one is resumed")
    o.add_argument("--dataset-name", default=None, help="dataset name in the report (default: the file's stem)")
    o.add_argument("--model-abbr", default=None,
                   help="model folder name in the report (default: the model with '/' and the like as '_')")
    o.add_argument("--retry-failed", action="store_true", help="resume: ask again for samples that failed before")
    o.add_argument("--scope", choices=("population", "benchmark"), default="population",
                   help="bayeseval estimate: population (questions a sample of a pool, default) or benchmark")
    o.add_argument("--level", type=_level, default=0.95, help="credibility level of the intervals (default 0.95)")
    q = p.add_argument_group("stopping early (anytime-valid, bayeseval.sequential)")
    q.add_argument("--until", metavar="WORDS", default=None,
                   help="stop starting new questions when the rule holds: 'width 0.05' (the confidence sequence of the "
                        "mean score is that narrow), 'N questions', 'N samples', or with --null 'decided'; joined by 'or'")
    q.add_argument("--null", type=float, default=None, help="with --until decided: the value to decide against")
    q.add_argument("--alpha", type=_level, default=0.05, help="error level of the sequence (default 0.05)")
    p.set_defaults(func=cmd_run)


def add_parser(sub, parents=()) -> argparse.ArgumentParser:
    """Register ``run`` on an argparse subparsers object (``set_defaults(func=cmd_run)``) and return it."""
    p = sub.add_parser("run", help="sample a model behind an OpenAI-compatible endpoint, score, report with intervals",
                       description=DESCRIPTION, epilog="examples:\n" + EXAMPLES,
                       formatter_class=argparse.RawDescriptionHelpFormatter, parents=list(parents))
    add_options(p)
    return p


def cmd_run(args, stop=None) -> int:
    """The ``run`` subcommand: :func:`bayeseval.runner.run` with the options; the summary on stdout."""
    from .engine import run

    if getattr(args, "null", None) is not None and not getattr(args, "until", None):
        raise ValueError("--null is the value --until 'decided' (or 'equivalent within r') decides against; give "
                         "--until too, or leave out --null")
    if getattr(args, "until", None):
        from .stopping import sequential_stop

        rule = sequential_stop(args.until, alpha=args.alpha, null=args.null)  # errors name --until / --null
        if stop is None:
            stop = rule
        else:  # both: stop when either says so
            given = stop

            def stop(matrix):
                a, b = rule(matrix), given(matrix)
                return (True, a[1]) if a[0] else b
    out = args.out or str(Path("runs") / Path(args.dataset).stem)
    res = run(args.dataset, base_url=args.base_url, model=args.model, api_key_env=args.api_key_env, n=args.n,
              n_per_request=args.n_per_request, temperature=args.temperature, max_tokens=args.max_tokens,
              stream=args.stream, concurrency=args.concurrency, timeout=args.timeout,
              connect_timeout=args.connect_timeout, request_timeout=args.request_timeout, retries=args.retries, backoff=args.backoff,
              max_backoff=args.max_backoff, scorer=args.scorer, out=out, seed=args.seed, limit=args.limit,
              prompt_field=args.prompt_field, answer_field=args.answer_field, id_field=args.id_field,
              dataset_name=args.dataset_name, model_abbr=args.model_abbr, retry_failed=args.retry_failed,
              scope=args.scope, level=args.level, stop=stop, progress=not getattr(args, "quiet", False))
    print(res.summary, end="" if res.summary.endswith("\n") else "\n")
    print(f"bayeseval: {res.requested} samples finished now, {res.resumed} read back; wrote {res.folder}",
          file=sys.stderr)
    if res.matrix.size and np.isnan(res.matrix).all():  # nothing to evaluate: a script must not read it as done
        print(f"bayeseval: error: every sample failed ({res.failures}; the errors are in {res.folder / 'samples.jsonl'}"
              "; --retry-failed asks again)", file=sys.stderr)
        return 1
    if res.failures:
        print(f"bayeseval: warning: {res.failures} samples failed (errors in {res.folder / 'samples.jsonl'}; "
              "--retry-failed asks again)", file=sys.stderr)
    return 0


def main(argv=None) -> int:
    """``python -m bayeseval.runner``: the ``run`` subcommand on its own (errors: one line, exit 2)."""
    parser = argparse.ArgumentParser(prog="python -m bayeseval.runner", description=DESCRIPTION,
                                     epilog="examples:\n" + EXAMPLES, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--debug", action="store_true", help="show tracebacks instead of one-line errors")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    add_options(parser)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("bayeseval: interrupted; run the same command again to resume", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - one line, exit 2, as the bayeseval command does
        if args.debug:
            raise
        print(f"bayeseval: error: {error_line(exc)}", file=sys.stderr)
        return 2
