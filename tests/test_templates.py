"""Every page template keeps text from a log text: each template in ambiglib/templates has a case
(tests/template_cases_report.py, tests/template_cases_evidence.py) that renders it with hostile values wherever a
log's text can appear, and in none does a tag, an attribute or a link of that text survive; the text shows escaped
and is never evaluated as a template."""

from __future__ import annotations

from pathlib import Path

import pytest
import template_cases_evidence
import template_cases_report
from hostile_html import ESCAPED, HOSTILE, parse

from ambiglib._markup import render

TEMPLATES = Path(__file__).resolve().parents[1] / "ambiglib" / "templates"
CASES = {**template_cases_report.CASES, **template_cases_evidence.CASES}


def test_every_template_has_one_case():
    names = {p.name for p in TEMPLATES.glob("*.html")}
    assert names == set(CASES), f"without a case: {sorted(names - set(CASES))}; no template: {sorted(set(CASES) - names)}"
    assert not set(template_cases_report.CASES) & set(template_cases_evidence.CASES)


def _problems(page: str) -> list[str]:
    """What of the hostile text got out of its text in a rendered page."""
    parsed = parse(page)
    tags = [tag for tag, _ in parsed.starts]
    out = []
    if "script" in tags or "textarea" in parsed.ends:
        out.append("a <script> or </textarea> tag")
    if [attrs for tag, attrs in parsed.starts if tag == "img" and attrs.get("src") == "x"]:
        out.append("an <img src=x>")
    # the only handler is the templates' own, on a figure: it marks the image as drawn
    if {name for _, attrs in parsed.starts for name in attrs if name.startswith("on")} - {"onload"}:
        out.append("an event handler")
    # every link is a path in the report, none a log's javascript: URL (a quoted one is a path)
    if not all(t and ":" not in t.split("/")[0] for _, attrs in parsed.starts for k, t in attrs.items()
               if k in ("href", "src")):
        out.append("a link with a scheme")
    if ESCAPED not in page:
        out.append("the text not shown escaped")
    if "{{ 7*7 }}{% if true %}x{% endif %}" not in page:
        out.append("a value evaluated as a template")
    if HOSTILE not in "".join(parsed.text):
        out.append("the text not what a reader sees")  # what a reader sees is what the log says
    return out


@pytest.mark.parametrize("template", sorted(CASES))
def test_hostile_text_from_a_log_stays_text(template):
    assert _problems(str(render(template, **CASES[template]))) == []


@pytest.mark.parametrize("template", sorted(CASES))
def test_each_case_fails_with_autoescape_off(template):
    """Every case puts a log's text where the template itself escapes it: rendered with autoescape off, each
    page lets a tag out, so the check above has something to catch in every template."""
    import jinja2

    loose = jinja2.Environment(loader=jinja2.PackageLoader("ambiglib", "templates"), autoescape=False,
                               undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)
    assert _problems(loose.get_template(template).render(**CASES[template]))
