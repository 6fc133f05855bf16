"""Production settings and the compose stack: `check --deploy` is clean, plain http is
redirected and HSTS sent once the proxy says https, the proxy header is trusted only where the
proxy is the sole way in, every page carries a CSP with no inline allowance (and the templates
need none), and only the containers that run Lean leave Docker's seccomp profile."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from django.test import Client
from django.urls import reverse

from tests.webapp.cast import Cast
from tests.webapp.uvicorn_lines import uvicorn_options

ROOT = Path(__file__).resolve().parents[2]
STRONG_KEY = "k3y-" + "Zq8vR2mX7pL4wN9sT1yB6cF0hJ5dG3aE8uK2oI7rV4nM1qW6"


def _prod(code: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if k not in {"SECRET_KEY", "DATABASE_URL"}}
    env = {
        **clean,
        "DJANGO_SETTINGS_MODULE": "webapp.settings.prod",
        "SECRET_KEY": STRONG_KEY,
        "ALLOWED_HOSTS": "testserver,leancoach.example.org",
        "LEANCOACH_VAR_DIR": tempfile.mkdtemp(prefix="leancoach-prod-"),
        **env,
    }
    return subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )


def test_check_deploy_is_clean() -> None:
    result = _prod(
        "import sys; from django.core.management import execute_from_command_line as m; "
        "m(['manage.py', 'check', '--deploy', '--fail-level', 'WARNING'])"
    )
    assert result.returncode == 0, result.stderr + result.stdout
    assert "no issues (1 silenced)" in result.stdout  # security.W021, see prod.py


_REQUESTS = """
import django, json
django.setup()
from django.conf import settings
from django.test import Client
c = Client()
plain = c.get('/accounts/login/')
# /healthz renders no template (the manifest static storage needs collectstatic first).
proxied = c.get('/healthz', headers={'X-Forwarded-Proto': 'https'})
health = c.get('/healthz')
metrics = c.get('/metrics')
print(json.dumps({
    'plain': [plain.status_code, plain.get('Location', '')],
    'proxied': [proxied.status_code, proxied.get('Strict-Transport-Security', '')],
    'health': [health.status_code, health.get('Strict-Transport-Security', '')],
    'metrics': metrics.status_code,
    'cookies': [settings.SESSION_COOKIE_SECURE, settings.CSRF_COOKIE_SECURE],
}))
"""


def test_http_is_redirected_and_https_gets_hsts_and_secure_cookies() -> None:
    result = _prod(_REQUESTS)
    assert result.returncode == 0, result.stderr
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    assert seen["plain"] == [301, "https://testserver/accounts/login/"]
    status, hsts = seen["proxied"]
    assert status in (200, 503) and "max-age=31536000" in hsts and "includeSubDomains" in hsts
    assert seen["cookies"] == [True, True]
    # Plain http still answers /healthz (the proxy's and orchestrator's own checks), no HSTS.
    assert seen["health"][0] in (200, 503) and seen["health"][1] == ""
    # ...and /metrics, which Prometheus scrapes at web:8000 inside the stack: refused without
    # the token, not redirected to an https that uvicorn does not serve.
    assert seen["metrics"] in (401, 403)


def test_without_the_proxy_the_forwarded_header_is_not_trusted() -> None:
    result = _prod(_REQUESTS, LEANCOACH_BEHIND_PROXY="0")
    seen = json.loads(result.stdout.strip().splitlines()[-1])
    # A client's own X-Forwarded-Proto does not make the request https: no HSTS.
    assert seen["proxied"][1] == ""


@pytest.mark.parametrize(
    "url",
    ["home", "login", "accounts:dashboard", "courses:exercise", "attempts:review", "console:index"],
)
def test_every_page_has_a_strict_csp(cast: Cast, url: str) -> None:
    client = Client()
    client.force_login(cast.admin if url.startswith("console") else cast.teacher)
    args = [cast.course.slug, cast.exercise.name] if url == "courses:exercise" else []
    response = client.get(reverse(url, args=args))
    policy = response["Content-Security-Policy"]
    directives = dict(d.strip().split(" ", 1) for d in policy.split(";") if d.strip())
    assert directives["script-src"] == "'self'"  # no inline or eval'd script, ever
    # Styles: the CodeMirror editor sets inline styles (they cannot run code).
    assert directives["style-src"] == "'self' 'unsafe-inline'"
    assert "unsafe-eval" not in policy
    assert "frame-ancestors 'none'" in policy


INLINE = [
    (re.compile(r"<script(?![^>]*\bsrc=)[^>]*>", re.I), "an inline <script>"),
    (re.compile(r"<style\b", re.I), "a <style> block"),
    (re.compile(r"\sstyle\s*=", re.I), "a style attribute"),
    (re.compile(r"\son[a-z]+\s*=", re.I), "an on* event attribute"),
    (re.compile(r"\shx-on[:\w-]*\s*=", re.I), "hx-on (needs eval)"),
    (re.compile(r"javascript:", re.I), "a javascript: URL"),
]


def test_templates_need_no_inline_script_or_style() -> None:
    found = []
    for path in sorted((ROOT / "templates").rglob("*.html")):
        text = path.read_text()
        for pattern, what in INLINE:
            for match in pattern.finditer(text):
                found.append(f"{path.relative_to(ROOT)}: {what}: {match.group(0)!r}")
    assert found == [], "the CSP blocks these:\n" + "\n".join(found)


def test_htmx_runs_without_eval_or_injected_styles(cast: Cast, client: Client) -> None:
    page = client.get(reverse("home")).content.decode()
    config = re.search(r'<meta name="htmx-config" content=\'([^\']*)\'', page)
    assert config is not None
    assert json.loads(config.group(1)) == {
        "includeIndicatorStyles": False,
        "allowEval": False,
        "allowScriptTags": False,
    }


def _compose() -> dict:
    return yaml.safe_load((ROOT / "docker" / "compose.yaml").read_text())


def test_only_the_proxy_is_published_and_web_is_behind_it() -> None:
    services = _compose()["services"]
    published = {
        name
        for name, service in services.items()
        for port in service.get("ports", [])
        if not str(port).startswith("127.0.0.1:")  # monitoring: loopback of the host only
    }
    assert published == {"proxy"}
    assert "edge" in services["web"]["networks"] and set(services["proxy"]["networks"]) == {"edge"}
    assert not {"db", "redis"} & {n for n, s in services.items() if "edge" in s.get("networks", [])}
    caddyfile = (ROOT / "docker" / "Caddyfile").read_text()
    assert "reverse_proxy web:8000" in caddyfile
    assert services["web"]["environment"]["LEANCOACH_BEHIND_PROXY"] == "1"


def test_only_lean_workers_leave_the_seccomp_profile() -> None:
    services = _compose()["services"]
    unconfined = {
        name
        for name, service in services.items()
        if "seccomp=unconfined" in service.get("security_opt", [])
    }
    assert unconfined == {"worker-lean", "worker-prover", "worker-train"}
    for name, service in services.items():
        assert "no-new-privileges:true" in service.get("security_opt", []), name
    for name in ("web", "migrate", "worker-lean", "worker-prover", "worker-train", "proxy"):
        assert services[name]["cap_drop"] == ["ALL"], name


def _confinement_table() -> dict[str, str]:
    """docs/OPERATIONS.md's table of containers: compose service -> its capabilities cell."""
    text = (ROOT / "docs" / "OPERATIONS.md").read_text(encoding="utf-8")
    rows = text.split("| containers | user | capabilities | confinement |", 1)[1]
    found: dict[str, str] = {}
    for line in rows.strip().splitlines()[1:]:
        if not line.startswith("|"):
            break
        label, _, capabilities, _ = (cell.strip() for cell in line.strip("|").split("|"))
        if label.startswith("app services ("):  # "(migrate, web, the workers, beat)"
            names = label.split("(", 1)[1].rstrip(")").split(", ")
        else:
            names = label.split("(", 1)[0].split(", ")
        for name in (n.strip() for n in names):
            assert name not in found, f"{name} is in two rows"
            found[name] = capabilities
    return found


def test_the_runbooks_confinement_table_is_what_compose_runs() -> None:
    """Each container's capabilities as docs/OPERATIONS.md states them (all dropped, all
    dropped but one, Docker's default set) are compose.yaml's, for every service."""
    services = _compose()["services"]
    table = _confinement_table()
    workers = {name for name in services if name.startswith("worker-")}
    assert table.pop("the workers") == table["web"]
    table |= dict.fromkeys(workers, table["web"])
    assert set(table) == set(services)
    for name, service in services.items():
        stated = table[name]
        dropped, added = service.get("cap_drop"), service.get("cap_add")
        if stated.startswith("Docker's default set"):
            assert (dropped, added) == (None, None), name
        elif stated.startswith("all dropped but "):
            kept = re.findall(r"`([A-Z_]+)`", stated)
            assert (dropped, added) == (["ALL"], kept), name
        else:
            assert stated == "all dropped" and (dropped, added) == (["ALL"], None), name
        assert "no-new-privileges:true" in service.get("security_opt", []), name


def _web_options(environment: dict[str, str]) -> dict[str, object]:
    """uvicorn's options as the web service's shell line gives them (compose turns `$$` into
    `$` first)."""
    line = _compose()["services"]["web"]["command"][2].replace("$$", "$")
    assert line.startswith("exec python -m uvicorn ")
    return uvicorn_options(line, environment)


def test_the_web_service_runs_one_process_per_core_unless_told() -> None:
    cores = len(os.sched_getaffinity(0))  # what nproc counts
    for environment, workers in (({}, cores), ({"WEB_CONCURRENCY": "3"}, 3)):
        options = _web_options(environment)
        assert options["workers"] == workers
        assert options["ws_per_message_deflate"] is False
        assert options["ws"] == "websockets-sansio"  # the old `websockets` one is deprecated
        # X-Forwarded-For is taken from Caddy alone: its fixed address on `edge`, from the
        # same variable and default (issue 26: '*' let any peer on a network name a client).
        address = _proxy_address()
        assert options["proxy_headers"] is True and options["forwarded_allow_ips"] == address
        assert address == "172.30.53.2"


def _proxy_address() -> str:
    raw = _compose()["services"]["proxy"]["networks"]["edge"]["ipv4_address"]
    assert raw == "${LEANCOACH_PROXY_IP:-172.30.53.2}"
    return raw.split(":-", 1)[1].rstrip("}")


def test_every_alert_has_its_runbook_row_with_its_duration() -> None:
    """docs/OPERATIONS.md says what each alert of docker/alerts.yml means and what to do,
    with the time it must hold before it fires (its `for`)."""
    rules = yaml.safe_load((ROOT / "docker" / "alerts.yml").read_text())["groups"][0]["rules"]
    text = (ROOT / "docs" / "OPERATIONS.md").read_text(encoding="utf-8")
    section = text.split("## Alerts (`docker/alerts.yml`)", 1)[1].split("\n## ", 1)[0]
    rows = {
        cells[0]: cells[1]
        for line in section.splitlines()
        if line.startswith("| ") and not line.startswith("| alert ")
        for cells in [[cell.strip() for cell in line.strip("|").split("|")]]
    }
    assert set(rows) == {rule["alert"] for rule in rules}
    for rule in rules:
        minutes = int(rule["for"].removesuffix("m"))
        assert re.search(rf"\b{minutes} min\b", rows[rule["alert"]]), rule["alert"]
