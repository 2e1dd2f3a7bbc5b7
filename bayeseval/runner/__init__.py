"""``bayeseval run``: sample a model behind an OpenAI-compatible endpoint, score, and report with intervals.

* :func:`run` (:mod:`bayeseval.runner.engine`) -- ``n`` samples per question of a JSON-lines dataset
  from ``POST {base_url}/chat/completions`` (vLLM, SGLang, TGI, OpenAI ...), concurrent, retried,
  resumable, with a stopping hook; writes bayeseval's outcome file and an AISBench-style work dir
  whose summary shows bayeseval's credible intervals beside AISBench's numbers;
* :func:`load_dataset` (:mod:`~bayeseval.runner.dataset`), :func:`make_scorer`
  (:mod:`~bayeseval.runner.scoring`), :class:`ChatClient` (:mod:`~bayeseval.runner.client`);
* :mod:`bayeseval.runner.command` -- the ``run`` subcommand's parser and handler.

httpx is needed to sample (``pip install 'bayeseval[run]'``); importing this package does not need it.
This package is not imported by ``import bayeseval``.  See docs/run.md.

>>> from bayeseval.runner import make_scorer
>>> make_scorer("numeric")("Natalia sold 48/2 = 24 clips in May.\\n#### 72", "72")
1.0
"""

from .client import ChatClient, ClientOptions, RequestFailed, require_httpx
from .dataset import Dataset, Question, load_dataset
from .engine import DEFAULT_BASE_URL, RunResult, arun, run
from .scoring import Scorer, ScorerError, make_scorer

__all__ = ["run", "arun", "RunResult", "load_dataset", "Dataset", "Question", "make_scorer", "Scorer", "ScorerError",
           "ChatClient", "ClientOptions", "RequestFailed", "require_httpx", "DEFAULT_BASE_URL"]
