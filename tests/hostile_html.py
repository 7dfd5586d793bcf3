"""Hostile text for the page templates, and HTML read as a browser's tokenizer reads it: what the template cases
(tests/template_cases_report.py, tests/template_cases_evidence.py) put wherever a log's text can appear, and what
tests/test_templates.py checks every rendered page with."""

from __future__ import annotations

from html.parser import HTMLParser

#: a script, attribute breakouts from double- and single-quoted attributes, a closed textarea, template syntax, a
#: javascript: URL
HOSTILE = ("<script>alert(1)</script>\"><img src=x onerror=alert(1)>'><img src=x onerror=alert(2)>"
           "</textarea><script>alert(3)</script>{{ 7*7 }}{% if true %}x{% endif %} javascript:alert(4)")
#: what HOSTILE's start shows as once escaped (markupsafe's spelling of the quotes)
ESCAPED = "&lt;script&gt;alert(1)&lt;/script&gt;&#34;&gt;&lt;img src=x onerror=alert(1)&gt;&#39;&gt;"


def text(field: str) -> str:
    """Hostile text named by the field it is put in, so that a failure says where."""
    return f"{field}: {HOSTILE}"


class Elements(HTMLParser):
    """Every start tag with its attributes, every end tag, and the text, as a browser's tokenizer reads them."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.starts: list[tuple[str, dict[str, str | None]]] = []
        self.ends: list[str] = []
        self.text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.starts.append((tag, dict(attrs)))

    def handle_endtag(self, tag: str) -> None:
        self.ends.append(tag)

    def handle_data(self, data: str) -> None:
        self.text.append(data)


def parse(page: str) -> Elements:
    """``page``'s tags and text."""
    parsed = Elements()
    parsed.feed(page)
    parsed.close()
    return parsed
