"""A form post bigger than Django accepts (DATA_UPLOAD_MAX_MEMORY_SIZE) gets a message the
page shows, instead of the bare 400 Django would give once something reads request.POST (the
CSRF check does, before any view).

htmx requests get the message swapped into the page's error box (`#form-errors`, else
`#page-errors` in base.html) with a 200, since htmx swaps only 2xx answers; the student's text
stays in the editor because nothing else is replaced. Other requests get a 413 page. Nothing
of the body is read; the request is refused before any view or action runs.
"""

from __future__ import annotations

from collections.abc import Callable

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string

ERROR_BOX = "#form-errors, #page-errors"  # htmx takes the first in the page


def _declared_length(request: HttpRequest) -> int:
    try:
        return int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        return 0


def _too_big(request: HttpRequest, length: int, limit: int) -> HttpResponse:
    message = (
        f"What you sent is {length / 1_000_000:.1f} MB; this site takes at most "
        f"{limit / 1_000_000:.1f} MB (and {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields) in "
        "one form. Nothing was saved. Your text is still in the editor: shorten it and send "
        "it again."
    )
    if request.headers.get("HX-Request") == "true":
        html = render_to_string("core/too_big.html#box", {"message": message}, request=request)
        response = HttpResponse(html)
        response["HX-Retarget"] = ERROR_BOX
        response["HX-Reswap"] = "outerHTML"
        return response
    html = render_to_string("core/too_big.html", {"message": message}, request=request)
    return HttpResponse(html, status=413)


class RequestTooBigMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.method == "POST":
            try:
                # Parse now, as the CSRF check would a moment later. A urlencoded body over
                # the limit is refused from its Content-Length without being read; in a
                # multipart body only the form fields count (files have their own limits).
                request.POST  # noqa: B018 - parsing is the point
            except (RequestDataTooBig, TooManyFieldsSent):
                limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
                return _too_big(request, _declared_length(request), limit)
        return self.get_response(request)
