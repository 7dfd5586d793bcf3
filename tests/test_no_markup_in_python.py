"""No HTML or CSS in Python strings (issue 73): every fragment and style of a page is in ambiglib/templates/, where
autoescape covers it. Each string literal of ambiglib/**/*.py (an f-string's literal parts too) is scanned for an
HTML element's tag (``<td``, ``</td>``) and a CSS rule block (``td{padding:0}``); docstrings and the messages of
raised errors may name a placeholder such as ``<file>`` or ``<table>.csv``."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "ambiglib"

#: HTML element names (the HTML Living Standard's, and the obsolete ones a page could still use)
ELEMENTS = frozenset((
    "a", "abbr", "address", "area", "article", "aside", "audio", "b", "base", "bdi", "bdo", "blockquote", "body",
    "br", "button", "canvas", "caption", "center", "cite", "code", "col", "colgroup", "data", "datalist", "dd", "del",
    "details", "dfn", "dialog", "div", "dl", "dt", "em", "embed", "fieldset", "figcaption", "figure", "font",
    "footer", "form", "frame", "frameset", "h1", "h2", "h3", "h4", "h5", "h6", "head", "header", "hgroup", "hr",
    "html", "i", "iframe", "img", "input", "ins", "kbd", "label", "legend", "li", "link", "main", "map", "mark",
    "menu", "meta", "meter", "nav", "noscript", "object", "ol", "optgroup", "option", "output", "p", "param",
    "picture", "pre", "progress", "q", "rp", "rt", "ruby", "s", "samp", "script", "search", "section", "select",
    "slot", "small", "source", "span", "strong", "style", "sub", "summary", "sup", "svg", "table", "tbody", "td",
    "template", "textarea", "tfoot", "th", "thead", "time", "title", "tr", "track", "u", "ul", "var", "video", "wbr"
))

#: an element's opening tag (``<td``, then a blank, ``>``, ``/`` or the string's end) or its closing tag (``</td>``);
#: not a placeholder in a name or path: one right after ``_`` or ``/`` (``scored_<label>``), a regex's group name
#: (``(?P<head>``), or one right before ``.`` or ``/`` and a name (``<frame>.arrow``, ``<notebook>/<table>``)
TAG = re.compile(r"(?<![_/])(?<!\(\?P)<(?P<name>[a-z][a-z0-9]*)(?=[\s/]|>(?![./]\w)|$)|</(?P<closing>[a-z][a-z0-9]*)\s*>")

#: CSS properties a rule of a page sets (a declaration is one of them, a colon and a value)
PROPERTIES = ("color|background|border|margin|padding|font|display|width|height|align|white-space|overflow|position"
              "|top|left|right|bottom|float|clear|opacity|cursor|content|flex|grid|gap|transform|transition|z-index"
              "|visibility|outline|box-shadow|text-decoration|line-height|list-style|vertical-align|word-break"
              "|letter-spacing|max-width|min-width|max-height|min-height|radius|collapse|size|weight|family")
#: a rule block: a selector (``td``, ``.card h2``, ``table.x th:first-child``) then ``{`` and a declaration
RULE = re.compile(r"(?:^|[\s};])[A-Za-z*.#:@\[][\w\s.#*:>+~,\[\]=\"'()-]*\{\s*(?:[a-z-]*-)?(?:" + PROPERTIES
                  + r")(?:-[a-z]+)*\s*:\s*[^{};]+[;}]")


def _docstrings(tree: ast.AST) -> set[int]:
    """The ids of the docstring nodes of a module, its classes and functions."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) \
                    and isinstance(first.value.value, str):
                out.add(id(first.value))
    return out


def _in_raise(tree: ast.AST) -> set[int]:
    """The ids of the strings in a ``raise`` statement: an error's message, shown as text, never put on a page."""
    return {id(n) for node in ast.walk(tree) if isinstance(node, ast.Raise) for n in ast.walk(node)}


def markup_in(source: str, name: str) -> list[str]:
    """Each HTML tag and CSS rule in the string literals of ``source``, as ``name:line: what``."""
    tree = ast.parse(source)
    allowed = _docstrings(tree) | _in_raise(tree)
    found = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Constant) and isinstance(node.value, str)) or id(node) in allowed:
            continue
        text = node.value
        for m in TAG.finditer(text):
            tag = m.group("name") or m.group("closing")
            if tag in ELEMENTS:
                line = node.lineno + text[:m.start()].count("\n")
                found.append(f"{name}:{line}: HTML tag {m.group(0).strip()!r} in {text[:60]!r}")
        for m in RULE.finditer(text):
            line = node.lineno + text[:m.start()].count("\n")
            found.append(f"{name}:{line}: CSS rule {m.group(0).strip()[:40]!r} in {text[:60]!r}")
    return found


#: what is still to move, by file and string (none left: the answer card's rule is templates/answer.css); each must
#: still be found, so that a moved one leaves this list
LEFT: set[tuple[str, str]] = set()


def test_no_python_file_of_the_package_holds_html_or_css():
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        found += markup_in(path.read_text(encoding="utf-8"), str(path.relative_to(PACKAGE.parent)))
    left = [f for f in found if any(f.startswith(name + ":") and repr(text) in f for name, text in LEFT)]
    assert len(left) == len(LEFT), f"moved to a template, so no longer to allow here: {LEFT}, found {left}"
    found = [f for f in found if f not in left]
    assert not found, "HTML or CSS in Python strings (put it in ambiglib/templates/):\n" + "\n".join(found)


@pytest.mark.parametrize("source, line", [
    ('x = 1\npage = "<table class=\'t\'>"\n', 2),
    ('x = f"<td>{value}"\n', 1),
    ('rows = "".join(cells) + "</tr>"\n', 1),
    ('rest = page.removeprefix("<table ")\n', 1),
    ('html = ("a"\n        "<div>")\n', 1),
    ('s = """one\ntwo <span class=x>"""\n', 2),
    ('STYLE = "body{color:#222}"\n', 1),
    ('STYLE = "table.report-table th, td { padding: 0.2em 0.6em; text-align: right }"\n', 1),
    ('def f():\n    return "x"\n\n\nCSS = ".card h2{font-size:1.1em}"\n', 5),
    ('def f():\n    """A doc."""\n    return "<p>"\n', 3),
    ('warn = "see <b>this</b>"\n', 1),
    ('x = "<a href=\'{}\'>open</a>".format(href)\n', 1),
    ('x = "<p>" + text\n', 1),
])
def test_a_tag_or_a_rule_is_found_with_its_line(source, line):
    found = markup_in(source, "m.py")
    assert found and found[0].startswith(f"m.py:{line}: "), found


@pytest.mark.parametrize("source", [
    'def f():\n    """Writes ``<table>.meta.json`` and a <div> page."""\n',
    '"""A module writing <p> pages."""\n',
    'raise ValueError(f"{path}: expected <table>.csv, found <td>")\n',
    'x = "see <file>, <name>/<notebook> and <run_id>"\n',
    'x = "a < b and c > d; <0.001; x <= y"\n',
    'x = "{count:,} rows, {share:.3f}, {name:>10}"\n',
    'x = "rs.{0}[rs.{0}.run_id == run_id]"\n',
    'x = "{color: red}"\n',
    'x = {"color": "#222", "padding": "0"}\n',
    'x = "markup: the <tag> names"\n',
    'x = "a snapshot: <frame>.arrow files; scored_<label>.csv; <notebook>/<table>.md"\n',
    'x = re.compile(r"^(?P<head>.+)-(?P<tail>\\d+)$")\n',
    'x = struct.unpack("<I", raw)\n',
])
def test_a_placeholder_a_format_or_a_docstring_is_not_markup(source):
    assert markup_in(source, "m.py") == []
