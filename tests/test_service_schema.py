"""Schemathesis (4.x) against the running service's own OpenAPI schema: no input may cause a 5xx.

For every operation in ``/openapi.json``, schemathesis generates requests that fit the schema
(positive) and requests that break it (negative); each is sent over HTTP to uvicorn on a loopback
port and must be answered with a non-5xx status (schemathesis' ``not_a_server_error`` check), and
every refusal must have the documented error shape.  The server runs with small limits (time,
cells, body) so that generated requests stay cheap.

(schemathesis' own pytest integration, ``schemathesis.pytest.from_fixture(...).parametrize()``,
fails under pytest 9 in schemathesis 4.32 -- it reads ``Function._nodeid`` -- so the operations'
hypothesis strategies are driven directly.)
"""

from __future__ import annotations

import pytest

schemathesis = pytest.importorskip("schemathesis")
pytest.importorskip("fastapi")
pytest.importorskip("uvicorn")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis import GenerationMode  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402


EXAMPLES = 60  # generated requests per operation and mode
OPERATIONS = [("POST", "/v1/metrics"), ("POST", "/v1/compare"), ("POST", "/v1/monitor"), ("POST", "/v1/rank"), ("POST", "/v1/plan"),
              ("POST", "/v1/pairwise"), ("POST", "/v1/rubric"), ("POST", "/v1/classify"),
              ("POST", "/v1/aisbench"), ("POST", "/v1/report.html"), ("GET", "/v1/catalog"), ("GET", "/healthz")]


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def service_url(live_service):
    return live_service


@pytest.fixture(scope="module")
def api_schema(service_url):
    return schemathesis.openapi.from_url(service_url + "/openapi.json")


def test_every_operation_is_fuzzed(api_schema):
    found = {(op.ok().method.upper(), op.ok().path) for op in api_schema.get_all_operations()}
    assert found == set(OPERATIONS)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=str)
@pytest.mark.parametrize("method,path", OPERATIONS, ids=[f"{m} {p}" for m, p in OPERATIONS])
def test_no_server_errors(api_schema, service_url, method, path, mode):
    if method == "GET" and mode == GenerationMode.NEGATIVE:
        pytest.skip("no parameters to break")
    operation = api_schema[path][method]
    statuses = []

    @given(case=operation.as_strategy(generation_mode=mode))
    @settings(max_examples=EXAMPLES, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    def check(case):
        response = case.call(base_url=service_url, timeout=60)
        statuses.append(response.status_code)
        case.validate_response(response, checks=[not_a_server_error])
        if response.status_code >= 400:  # every refusal has the documented shape
            assert set(response.json()["error"]) == {"type", "field", "message", "details"}, response.text

    check()
    assert statuses and max(statuses) < 500
