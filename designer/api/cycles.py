"""A rendered DRF response, let go of by its view, so refcounting frees it when the server does.

DRF leaves every response it renders in reference cycles: the view keeps it (``view.response``), its renderer
context keeps the view and the response itself (``renderer_context["view"]``, ``["response"]``), and the view's
request keeps the view (``parser_context["view"]``). So the response's data — a 100k-GPU live evaluate's ≈ 1,600
dicts and lists — outlives the request until CPython's cyclic collector finds it: a young collection of ≈ 3 ms in
every fourth or fifth such request, inside whichever request it falls in (the tail of `benchmarks/live.py`).
Once the response is rendered nothing reads those references again (the bytes are written), so they are dropped
here and the data goes with the response. What is still cyclic after this is the request's own small web
(Django's lazy ``request.user``), not the data it answered with.
"""

from __future__ import annotations


def detach(response) -> None:
    """Drop a rendered DRF response's references back to itself and to its view (and the view's to it)."""
    context = getattr(response, "renderer_context", None)
    if not isinstance(context, dict) or not getattr(response, "is_rendered", False):
        return
    context.pop("response", None)
    view = context.pop("view", None)
    if view is not None and getattr(view, "response", None) is response:
        del view.response


class DetachRenderedResponseMiddleware:
    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        response = self.get_response(request)
        detach(response)
        return response
