"""Pages from jinja2 templates with autoescape: every value a template shows is escaped unless it is markup
built by another template (:class:`markupsafe.Markup`), so a forgotten escape cannot let a log's text become a tag;
and every text a template shows is cut at :data:`ambiglib._text.SHOWN_CHARS` characters, saying how many more it has
(:func:`ambiglib._text.cut`), so a forgotten cut cannot put a log's 20 MB answer on a page.

The templates are ``ambiglib/templates/*.html`` and the pages' styles ``ambiglib/templates/*.css``, shipped with the
package.
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

__all__ = ["render", "Markup", "macro", "escape_each", "stylesheet"]

from markupsafe import Markup, escape

from ambiglib._text import SHOWN_CHARS, cut


@lru_cache(maxsize=1)
def _environment() -> Any:
    import jinja2

    return jinja2.Environment(
        loader=jinja2.PackageLoader("ambiglib", "templates"),
        autoescape=True,  # every template here writes HTML
        undefined=jinja2.StrictUndefined,  # a value a template names and the caller forgot is an error, not ""
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
        finalize=_shown,  # every {{ value }}, before it is escaped
    )


def _shown(value: Any) -> Any:
    """A value as a template shows it: a text (not markup, which another template or pandas built) cut at
    :data:`SHOWN_CHARS` characters with how many more it has; anything else as it is."""
    if type(value) is str and len(value) > SHOWN_CHARS:
        return cut(value)
    return value


def render(template: str, **values: Any) -> Markup:
    """``template`` (a file name under ``ambiglib/templates``) rendered with ``values``, as markup that a page
    built from another template embeds as it is."""
    return Markup(_environment().get_template(template).render(**values))


@cache
def stylesheet(name: str) -> str:
    """The rules of ``ambiglib/templates/<name>.css`` as one line, its comments left out: what a page puts in its
    ``<style>`` (and what an Answer scopes to its card in a notebook)."""
    import re
    from importlib.resources import files

    text = (files("ambiglib") / "templates" / f"{name}.css").read_text(encoding="utf-8")
    return "".join(line.strip() for line in re.sub(r"/\*.*?\*/", "", text, flags=re.S).splitlines())


def macro(template: str, name: str) -> Any:
    """The macro ``name`` of ``template``, to call from Python (jinja2's ``Template.module``): its output is markup."""
    return getattr(_environment().get_template(template).module, name)


def escape_each(texts: list[str]) -> list[str]:
    """Each text escaped as a template escapes it, in one call over them all joined (escaping goes character by
    character), or one at a time when a text holds the character that joins them."""
    joined = "\x00".join(texts)
    if texts and joined.count("\x00") == len(texts) - 1:
        return str.split(escape(joined), "\x00")
    return [str(escape(t)) for t in texts]
