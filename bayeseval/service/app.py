"""The FastAPI application: :func:`create_app`.

Endpoints (JSON in, JSON out; the schema is served at ``/openapi.json``, the docs page at ``/docs``):

* ``POST /v1/metrics``   estimates with credible intervals per model and metric;
* ``POST /v1/compare``   is A better than B (paired), by how much, how sure;
* ``POST /v1/monitor``   a running A vs B comparison, anytime-valid: confidence sequence, p-value, stop or go on;
* ``POST /v1/rank``      every pair compared, adjusted p-values, rank probabilities;
* ``POST /v1/plan``      variance components of a pilot and the implied study size;
* ``POST /v1/pairwise``  pairwise preferences: win rate of one pair, or Bradley-Terry / Davidson strengths;
* ``POST /v1/classify``  classification metrics with intervals per model, two models compared;
* ``POST /v1/rubric``    rubric ratings on several dimensions: estimates, pass rules, correlations, judge
  agreement; or two systems compared per dimension;
* ``POST /v1/report.html``  the body of ``/v1/metrics`` -> one self-contained HTML report page (estimates,
  plots, ranking, warnings, provenance);
* ``POST /v1/aisbench``  an AISBench work dir as a zip (multipart field ``file``) -> report with the
  replica-grouping bug corrected;
* ``GET /v1/catalog``    metrics, parameters, scopes, intervals, priors and limits;
* ``GET /healthz``       liveness (never needs the API key).

>>> app = create_app(Settings(workers=0))
>>> sorted(p for p in app.openapi()["paths"] if p.startswith("/v1"))  # doctest: +NORMALIZE_WHITESPACE
['/v1/aisbench', '/v1/catalog', '/v1/classify', '/v1/compare', '/v1/metrics', '/v1/monitor', '/v1/pairwise',
 '/v1/plan', '/v1/rank', '/v1/report.html', '/v1/rubric']
"""

from __future__ import annotations

import logging
import shutil
import tempfile
from contextlib import asynccontextmanager
from typing import Literal

from fastapi import APIRouter, FastAPI, File, Query, Request, Security, UploadFile
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.security import APIKeyHeader
from fastapi_offline import FastAPIOffline
from starlette.concurrency import run_in_threadpool
from starlette.exceptions import HTTPException as StarletteHTTPException

from bayeseval import __version__

from . import tasks
from .catalog import catalog
from .errors import ServiceError, encode_json, encoded, error_body, loads, validation_errors
from .limits import DOCS_STATIC, ApiKey, BodyLimit, check_cells
from .schemas import (LIMITS, AISBenchResponse, TableInterval, check_id_types, check_metric_name, CatalogResponse, CompareRequest, CompareResponse, ErrorResponse,
                      HealthResponse, MetricsRequest, MetricsResponse, MonitorRequest, PairwiseRequest, PlanRequest, PlanResponse, RubricRequest, ClassifyRequest,
                      RankRequest, RankResponse, Scope)
from .settings import Settings
from .workers import ComputePool

__all__ = ["create_app"]

log = logging.getLogger("bayeseval.service")

_ERRORS = {
    400: {"model": ErrorResponse, "description": "the body is not valid JSON"},
    401: {"model": ErrorResponse, "description": "API key missing or wrong (when one is configured)"},
    413: {"model": ErrorResponse, "description": "request body over the size limit"},
    415: {"model": ErrorResponse, "description": "the body is not sent as JSON"},
    422: {"model": ErrorResponse, "description": "invalid field, impossible parameter, cell cap or time limit"},
}
_STATUS_TYPES = {400: "invalid_request", 401: "unauthorized", 404: "not_found", 405: "method_not_allowed",
                 413: "payload_too_large", 415: "unsupported_media_type"}

DESCRIPTION = """Bayesian metrics with credible intervals, model comparisons, rankings and study
planning for LLM evaluation outcomes, over HTTP.  Every number is computed by the `bayeseval`
library (the service only translates).  Errors have one shape:
`{"error": {"type", "field", "message", "details"}}`."""


class JSON(JSONResponse):
    """JSON with every non-ASCII character escaped: a client's lone surrogate (``"\\ud800"`` in a model
    name) is echoed back as valid JSON instead of failing to encode."""

    def render(self, content) -> bytes:
        return encode_json(content)


class _JSONRequest(Request):
    """A request whose JSON body is decoded by :func:`~bayeseval.service.errors.loads`: an object that repeats a
    key (two models named ``a``) is refused instead of keeping the last one."""

    async def json(self):
        if not hasattr(self, "_json"):
            self._json = loads(await self.body())
        return self._json


class _JSONRoute(APIRoute):
    """The routes of ``/v1``: request bodies decoded by :class:`_JSONRequest`."""

    def get_route_handler(self):
        handler = super().get_route_handler()

        async def strict(request: Request) -> Response:
            return await handler(_JSONRequest(request.scope, request.receive))

        return strict


def _json(status: int, body: dict) -> JSONResponse:
    return JSON(body, status_code=status)


def _capped(cells: int, cap: int, field: str, noun: str) -> None:
    """A body of ``cells`` labels / ratings over the cell cap is a 422 naming ``field``."""
    if cells > cap:
        raise ServiceError(422, "too_many_cells", field, f"{cells:,} {noun} are over the cap of {cap:,} "
                                                         "(BAYESEVAL_MAX_CELLS)")


async def _computed(pool: ComputePool, fn, *args) -> Response:
    """``fn(*args)`` in a compute worker, answered with the JSON bytes the worker encoded."""
    return Response(await pool.run(encoded, fn, *args), media_type="application/json")


def _install_handlers(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError):
        errors = list(exc.errors())
        ctype = request.headers.get("content-type", "")
        if (len(errors) == 1 and tuple(errors[0].get("loc", ())) == ("body",) and "json" not in ctype
                and "multipart" not in ctype and request.method == "POST"):
            return _json(415, error_body("unsupported_media_type", "Content-Type",
                                         f"send the body as JSON with Content-Type: application/json (got "
                                         f"{ctype or 'no Content-Type'})"))
        return _json(*validation_errors(errors, getattr(exc, "body", None)))

    @app.exception_handler(ServiceError)
    async def _service(request: Request, exc: ServiceError):
        response = _json(exc.status, exc.body())
        if exc.status == 503:
            response.headers["Retry-After"] = "2"  # seconds: a replacement worker is starting
        return response

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        if exc.status_code == 400 and "parsing the body" in str(exc.detail):  # bad UTF-8, nesting too deep
            cause = exc.__cause__ or exc.__context__
            if isinstance(cause, ServiceError):  # a key repeated in an object (errors.loads)
                return _json(cause.status, cause.body())
            why = {RecursionError: "nested too deeply", UnicodeDecodeError: "not valid UTF-8"}.get(
                type(cause), "not parseable")
            return _json(400, error_body("invalid_json", "body", f"the request body is not valid JSON ({why})"))
        kind = _STATUS_TYPES.get(exc.status_code, "http_error")
        return JSON(error_body(kind, None, str(exc.detail)), status_code=exc.status_code,
                    headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _internal(request: Request, exc: Exception):  # a bug of ours: logged, never a traceback to clients
        log.exception("internal error on %s %s", request.method, request.url.path)
        return _json(500, error_body("internal", None, "internal error; the server log has the details"))


def _ids_agree(parts: dict) -> None:
    try:
        check_id_types(parts)
    except ValueError as exc:
        field, message = exc.args
        raise ServiceError(422, "validation_error", field, message) from None


def create_app(settings: Settings | None = None) -> FastAPI:
    """The service as an ASGI app; ``settings`` default to :meth:`Settings.from_env` (``BAYESEVAL_*``).

    Run it with ``bayeseval serve`` or ``uvicorn --factory bayeseval.service.app:create_app``.
    """
    settings = Settings.from_env() if settings is None else settings
    pool = ComputePool(settings.workers, settings.timeout)

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        await pool.start()
        try:
            yield
        finally:
            await pool.close()

    # FastAPIOffline: /docs loads Swagger UI from DOCS_STATIC, shipped in the package (no CDN).  No /redoc: ReDoc's
    # script fetches its footer logo from its CDN at run time, so it is not offline
    app = FastAPIOffline(title="bayeseval", version=__version__, description=DESCRIPTION, lifespan=lifespan,
                         default_response_class=JSON, static_url=DOCS_STATIC, redoc_url=None)
    app.state.settings, app.state.pool = settings, pool
    _install_handlers(app)
    secured = [Security(APIKeyHeader(name="X-API-Key", auto_error=False))] if settings.api_key else []
    v1 = APIRouter(prefix="/v1", dependencies=secured, responses=_ERRORS, route_class=_JSONRoute)
    cap = settings.max_cells

    @v1.post("/metrics", response_model=None, responses={200: {"model": MetricsResponse}},
             summary="Metrics with credible intervals (or confidence intervals over questions) per model")
    async def metrics(req: MetricsRequest):
        check_cells({f"models.{n}": o for n, o in req.models.items()}, cap)
        return await _computed(pool, tasks.metrics, req)

    @v1.post("/report.html", response_class=HTMLResponse,
             responses={200: {"content": {"text/html": {}}, "description": "the report as one HTML page"}},
             summary="The evaluation of /v1/metrics as one self-contained HTML report")
    async def report_html(req: MetricsRequest):
        check_cells({f"models.{n}": o for n, o in req.models.items()}, cap)
        page = await pool.run(tasks.report_html, req)
        return HTMLResponse(page.encode("utf-8", "backslashreplace"))

    @v1.post("/compare", response_model=None, responses={200: {"model": CompareResponse}},
             summary="Paired comparison of two models on the same questions")
    async def compare(req: CompareRequest):
        check_cells({"a": req.a, "b": req.b}, cap)
        _ids_agree({"a": req.a, "b": req.b})
        return await _computed(pool, tasks.compare, req)

    @v1.post("/monitor", response_model=None,
             summary="Anytime-valid: where a running A vs B comparison stands, and whether to stop")
    async def monitor(req: MonitorRequest):
        check_cells({"a": req.a, "b": req.b}, cap)
        _ids_agree({"a": req.a, "b": req.b})
        return await _computed(pool, tasks.monitor, req)

    @v1.post("/rank", response_model=None, responses={200: {"model": RankResponse}},
             summary="Rank models: pairwise comparisons with adjusted p-values, rank probabilities")
    async def rank(req: RankRequest):
        check_cells({f"models.{n}": o for n, o in req.models.items()}, cap)
        _ids_agree({f"models.{n}": o for n, o in req.models.items()})
        return await _computed(pool, tasks.rank, req)

    @v1.post("/plan", response_model=None, responses={200: {"model": PlanResponse}},
             summary="Study size from a pilot: standard errors, detectable effects, questions needed")
    async def plan(req: PlanRequest):
        check_cells({"a": req.a, "b": req.b}, cap)
        _ids_agree({"a": req.a, "b": req.b})
        return await _computed(pool, tasks.plan, req)

    @v1.post("/pairwise", response_model=None, summary="Pairwise preferences: strengths of many models, or one pair")
    async def pairwise(req: PairwiseRequest):
        _capped(req.cells, cap, "labels", "labels")
        return await _computed(pool, tasks.pairwise, req)

    @v1.post("/rubric", response_model=None,
             summary="Rubric ratings: per-dimension estimates, pass rules, judge agreement; or two systems compared")
    async def rubric(req: RubricRequest):
        _capped(req.cells, cap, "ratings", "ratings")
        return await _computed(pool, tasks.rubric, req)

    @v1.post("/classify", response_model=None,
             summary="Classification metrics (accuracy, F1, per class) with intervals; two models compared")
    async def classify(req: ClassifyRequest):
        _capped(req.cells, cap, "true", "labels")
        return await _computed(pool, tasks.classify, req)

    @v1.post("/aisbench", response_model=None, responses={200: {"model": AISBenchResponse}},
             summary="AISBench work dir (zip) -> metrics with intervals, grouping bug corrected")
    async def aisbench(
        file: UploadFile = File(description="zip of an AISBench work dir (outputs/default/<timestamp>/)"),
        metrics: str | None = Query(None, max_length=2000, description="comma-separated metrics; default: those "
                                                                       "AISBench reported (avg@n, pass@k, cons@k)"),
        regroup: Literal["auto", "true", "false"] = Query("auto", description="correct the grouping bug: auto "
                                                                               "(from the evidence), or force"),
        scope: Scope = "population",
        interval: TableInterval = "auto",
        level: float = Query(0.95, gt=0, lt=1, allow_inf_nan=False),
        seed: int | None = Query(None, ge=0, le=2**53),
    ):
        names = [m.strip() for m in (metrics or "").split(",") if m.strip()]
        if len(names) > LIMITS["metrics"]:
            raise ServiceError(422, "validation_error", "metrics", f"at most {LIMITS['metrics']} metrics, "
                                                                   f"got {len(names)}")
        for name in names:
            try:
                check_metric_name(name)
            except ValueError as exc:
                raise ServiceError(422, "validation_error", "metrics", str(exc)) from None
        opts = {"metrics": names or None, "regroup": {"auto": "auto", "true": True, "false": False}[regroup],
                "scope": scope, "interval": interval, "level": level, "seed": seed}
        data = await file.read()
        folder = tempfile.mkdtemp(prefix="bayeseval-upload-")  # removed here, even if the worker is killed
        try:
            return await _computed(pool, tasks.aisbench, data, file.filename or "upload.zip", opts,
                                   settings.max_zip_files, settings.max_unzipped, folder, cap)
        finally:
            await run_in_threadpool(shutil.rmtree, folder, True)

    @v1.get("/catalog", response_model=CatalogResponse, summary="Metrics, parameters, scopes, priors and limits")
    async def get_catalog():
        return catalog(settings.public())

    app.include_router(v1)

    @app.get("/healthz", response_model=HealthResponse, summary="Liveness")
    async def healthz():
        return {"status": "ok", "version": __version__}

    app.add_api_route("/healthz", healthz, methods=["HEAD"], include_in_schema=False)

    app.add_middleware(BodyLimit, max_body=settings.max_body)
    app.add_middleware(ApiKey, api_key=settings.api_key)  # outermost: refuse before reading a body
    return app
