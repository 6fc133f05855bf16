"""Work a web process does once at start instead of on its first requests.

The cached template loader compiles a template the first time a request renders it, so
after every start or deploy each web process paid the compile of every page and fragment it
served first: measured in bench/bench_web.py's first submit burst on fresh processes, part
of the 1-2 ms of web CPU per submit it cost over the same burst on warm ones.
"""

from __future__ import annotations

import logging
import time
from pathlib import Path

log = logging.getLogger(__name__)


def compile_templates() -> int:
    """Compile the project's templates (templates/) into the cached loader; returns how many.

    Nothing to do where templates are not cached (DEBUG re-reads them on every request). A
    template that fails to compile is logged and left for its page to report, as before."""
    from django.conf import settings
    from django.template import engines

    engine = engines["django"]
    if not _caches_templates(engine):
        return 0
    started = time.monotonic()
    compiled = 0
    for folder in settings.TEMPLATES[0]["DIRS"]:
        root = Path(str(folder))
        for path in sorted(root.rglob("*.html")):
            name = path.relative_to(root).as_posix()
            try:
                engine.get_template(name)
            except Exception:  # noqa: BLE001 - its page shows the error, as without warm-up
                log.warning("template %s does not compile", name, exc_info=True)
                continue
            compiled += 1
    log.info("compiled %d templates in %.2f s", compiled, time.monotonic() - started)
    return compiled


def _caches_templates(engine: object) -> bool:
    from django.template.loaders.cached import Loader as CachedLoader

    pending = list(getattr(getattr(engine, "engine", None), "template_loaders", []))
    while pending:
        loader = pending.pop()
        if isinstance(loader, CachedLoader):
            return True
        pending.extend(getattr(loader, "loaders", []))
    return False
