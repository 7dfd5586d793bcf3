"""A parameters file is data, never code (issue 31): every YAML tag refused, values of the declared types
only, and an injected cell that is nothing but literal assignments."""

from __future__ import annotations

import ast
import base64
import json
import re
from pathlib import Path

import pytest
from conftest import run_record, write_jsonl
from hypothesis import given, settings
from hypothesis import strategies as st

from ambiglib.errors import ParameterError, ReportError
from ambiglib.report import run_report
from ambiglib.report._parameters import check_parameters, injected_source, notebook_parameters, read_params_file

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = ROOT / "data" / "example"
QUICKSTART = ROOT / "notebooks" / "quickstart.ipynb"


def _canary_payload(canary: Path) -> str:
    """What papermill's translator turned into code: a value closing its string and calling os.system."""
    return f'"+__import__("os").system("touch {canary}")+"'


def _families(canary: Path) -> dict[str, tuple[str, int]]:
    """One parameters file per YAML tag family (and the other YAML-only constructs): text, line refused at."""
    touch = f"touch {canary}"
    binary = base64.b64encode(_canary_payload(canary).encode()).decode()
    return {
        "core !!binary (the reported exploit)": (f"seed: !!binary {binary}\n", 1),
        "core !!str": ("n_boot: 5\nseed: !!str 1\n", 2),
        "core !!int": ("seed: !!int '1'\n", 1),
        "core !!float": ("seed: !!float 1\n", 1),
        "core !!bool": ("seed: !!bool yes\n", 1),
        "core !!null": ("seed: !!null ''\n", 1),
        "core !!timestamp": ("seed: !!timestamp 2001-12-14\n", 1),
        "collection !!set": ("models: !!set {a, b}\n", 1),
        "collection !!omap": ("conventions: !!omap [{a: 1}]\n", 1),
        "collection !!pairs": ("conventions: !!pairs [{a: 1}]\n", 1),
        "collection !!seq": ("models: !!seq [a]\n", 1),
        "collection !!map": ("conventions: !!map {a: b}\n", 1),
        "python/object/apply": (f"seed: !!python/object/apply:os.system [{touch!r}]\n", 1),
        "python/object/new": (f"seed: !!python/object/new:subprocess.Popen [[sh, -c, {touch!r}]]\n", 1),
        "python/object": ("seed: !!python/object:argparse.Namespace {a: 1}\n", 1),
        "python/name": ("seed: !!python/name:os.system\n", 1),
        "python/module": ("seed: !!python/module:os\n", 1),
        "python/tuple": ("models: !!python/tuple [a, b]\n", 1),
        "python/bytes": ("seed: !!python/bytes aGk=\n", 1),
        "python/str": ("seed: !!python/str x\n", 1),
        "custom local tag": ("seed: !custom 1\n", 1),
        "verbatim tag": ("seed: !<tag:yaml.org,2002:int> 1\n", 1),
        "non-specific tag": ("seed: ! 1\n", 1),
        "%TAG directive": ("%TAG !e! tag:example.com,2000:\n---\nseed: !e!thing 1\n", 3),
        "tag on a key": ("!!str seed: 1\n", 1),
        "tag on a nested mapping": ("notebooks:\n  quickstart: !!python/object/apply:os.system [x]\n", 2),
        "anchor": ("seed: &a 1\nn_boot: 2\n", 1),
        "alias": ("models: [a]\nsuites: *a\n", 2),
    }


@pytest.mark.parametrize("family", list(_families(Path("/x"))))
def test_every_yaml_tag_family_is_refused_naming_file_and_line(tmp_path, family):
    canary = tmp_path / "canary"
    text, line = _families(canary)[family]
    params = tmp_path / "params.yaml"
    params.write_text(text)
    with pytest.raises(ParameterError, match=rf"^{re.escape(str(params))}:{line}: (YAML tag|anchor|alias) "):
        read_params_file(params)
    assert not canary.exists()


def test_the_reported_exploit_is_refused_before_any_kernel_starts(tmp_path):
    """`seed: !!binary <base64>` made papermill write `seed = "b'"+__import__("os").system(...)+"'"`."""
    canary = tmp_path / "canary"
    params = tmp_path / "params.yaml"
    params.write_text(_families(canary)["core !!binary (the reported exploit)"][0])
    with pytest.raises(ReportError, match=r"params\.yaml:1: YAML tag !!binary: a parameters file holds plain values"):
        run_report(EXAMPLE, tmp_path / "out", params_file=params, notebooks=["quickstart"])
    assert not canary.exists() and not (tmp_path / "out").exists()


@pytest.mark.parametrize("text, message", [
    ("seed: 1\nseed: 2\n", "params.yaml:2: key 'seed' given twice"),
    ("1: 2\n", "params.yaml:1: key '1': keys must be text"),
    ("null: 2\n", "params.yaml:1: key 'null': keys must be text"),
    ("? [a]\n: 1\n", "params.yaml:1: a key that is a list or a mapping: keys must be text"),
    ("seed: .nan\n", "params.yaml: seed: nan is not a finite number"),
    ("seed: -.inf\n", "params.yaml: seed: -inf is not a finite number"),
    ("seed: " + "[" * 3000 + "]" * 3000 + "\n", "params.yaml: nested too deep to be a parameters file"),
    ("models: " + "[" * 40 + "]" * 40 + "\n", "nested more than 32 deep"),
    ("seed: " + "9" * 5000 + "\n", "params.yaml: not a parameters file (Exceeds the limit (4300 digits)"),
    ("runs: \"a\\0b\"\n", "params.yaml: runs: 'a\\x00b': text with a NUL or a lone surrogate"),
    ("runs: \"\\ud800\"\n", "params.yaml: runs: '\\ud800': text with a NUL or a lone surrogate"),
    ("- 1\n- 2\n", "params.yaml: parameters must be a mapping of name: value (got list)"),
    ("seed: [1\n", "params.yaml:2: not readable as YAML"),
])
def test_what_yaml_has_and_json_has_not_is_refused(tmp_path, text, message):
    params = tmp_path / "params.yaml"
    params.write_text(text)
    with pytest.raises(ParameterError, match=re.escape(message)):
        read_params_file(params)


def test_plain_yaml_reads_as_json_would(tmp_path):
    params = tmp_path / "params.yaml"
    text = ("n_boot: 0x10\nseed: 2024-01-01\nmodels: [a, 'b\"c', null]\nconventions: {x: hil-bench}\n"
            "flag: yes\nratio: 1.0e+3\nplain: 1e3\nnotebooks:\n  quickstart: {n_boot: 5}\n")
    params.write_text(text)
    common, per_notebook = read_params_file(params)
    # as PyYAML's safe loader reads it (YAML 1.1: 0x10 is 16, yes is true, 1e3 without a dot is text), but a
    # date stays text: JSON has no date type
    import yaml

    expected = yaml.safe_load(text)
    assert str(expected["seed"]) == "2024-01-01" and expected["plain"] == "1e3" and expected["ratio"] == 1000.0
    expected["seed"] = "2024-01-01"
    assert per_notebook == expected.pop("notebooks") == {"quickstart": {"n_boot": 5}}
    assert common == expected


def test_a_file_that_is_too_large_or_not_utf8_is_refused(tmp_path):
    big = tmp_path / "big.yaml"
    big.write_text("x: " + "a" * (1 << 20) + "\n")
    with pytest.raises(ParameterError, match="more than 1,048,576 bytes"):
        read_params_file(big)
    binary = tmp_path / "bin.yaml"
    binary.write_bytes(b"seed: \xff\n")
    with pytest.raises(ParameterError, match=r"bin\.yaml: not UTF-8 text \(byte 6"):
        read_params_file(binary)


# ----------------------------------------------------------------------------- declared types


@pytest.mark.parametrize("common, message", [
    ({"n_boot": "many"}, "params.yaml: n_boot: 'many' is not an integer (declared int)"),
    ({"n_boot": 1.5}, "params.yaml: n_boot: 1.5 is not an integer (declared int)"),
    ({"n_boot": True}, "params.yaml: n_boot: True is not an integer (declared int)"),
    ({"seed": None}, "params.yaml: seed: None is not an integer (declared int)"),
    ({"models": "gpt-5"}, "params.yaml: models: 'gpt-5' is not a list or null (declared Optional[list])"),
    ({"conventions": ["hil-bench"]}, "params.yaml: conventions: ['hil-bench'] is not a mapping or null"),
    ({"runs": 5}, "params.yaml: runs: 5 is not text (declared str)"),
    ({"n_boot": b"5"}, "params.yaml: n_boot: b'5' is a bytes; a parameter is text, a number"),
    ({"models": [("a", 1)]}, "params.yaml: models[0]: ('a', 1) is a tuple"),
])
def test_a_value_of_another_type_than_declared_is_refused(common, message):
    declared = {"quickstart": notebook_parameters(QUICKSTART)}
    with pytest.raises(ParameterError, match=re.escape(message)):
        check_parameters("params.yaml", common, {}, declared, ["quickstart"])


def test_values_of_the_declared_types_pass_and_unannotated_parameters_take_their_defaults_type():
    declared = {"quickstart": notebook_parameters(QUICKSTART)}
    check_parameters("p", {"n_boot": 10, "seed": 3, "models": None, "suites": ["sql"], "conventions": {}},
                     {"quickstart": {"benchmarks": ["lhaw"]}}, declared, ["quickstart"])
    mine = {"mine": {"ratio": {"name": "ratio", "inferred_type_name": "None", "default": "0.5", "help": ""},
                     "label": {"name": "label", "inferred_type_name": "None", "default": "None", "help": ""}}}
    check_parameters("p", {"ratio": 2, "label": {"any": ["plain", 1]}}, {}, mine, ["mine"])
    with pytest.raises(ParameterError, match=re.escape("p: ratio: 'x' is not a number (declared default 0.5)")):
        check_parameters("p", {"ratio": "x"}, {}, mine, ["mine"])


# ----------------------------------------------------------------------------- the injected cell

HOSTILE = [
    '"+__import__("os").system("touch CANARY")+"',
    "'; import os; os.system('touch CANARY'); '",
    '\\"; import os #',
    "\"\"\"\nimport os\nos.system('touch CANARY')\n\"\"\"",
    "x\ny = __import__('os').system('touch CANARY')",
    "{__import__('os').system('touch CANARY')}",
    "b'\\x00'", "\\", "\u2028\u2029\x85", "\U0001F600", "",
]

text = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")) | st.sampled_from(HOSTILE)
plain = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | text,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12)


def _run_cell(source: str) -> dict:
    namespace: dict = {"__builtins__": {}}
    exec(compile(source, "<injected>", "exec"), namespace)  # proven literal: nothing here can call anything
    return {k: v for k, v in namespace.items() if k != "__builtins__"}


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.from_regex(r"[a-z_][a-z0-9_]{0,8}", fullmatch=True).filter(lambda s: s not in (
    "if", "in", "is", "or", "as", "def", "for", "and", "not", "del", "try", "with", "from", "else", "elif", "pass",
    "while", "class", "break", "raise", "yield", "async", "await", "global", "lambda", "return", "import", "assert",
    "except", "finally", "continue", "nonlocal")), plain, max_size=5))
def test_any_plain_value_is_injected_as_a_literal_that_reads_back_as_itself(parameters):
    source = injected_source(parameters)
    for stmt in ast.parse(source).body:
        assert isinstance(stmt, ast.Assign) and isinstance(stmt.targets[0], ast.Name)
        ast.literal_eval(stmt.value)  # raises on anything but a literal
    assert json.dumps(_run_cell(source), sort_keys=True) == json.dumps(parameters, sort_keys=True)


@pytest.mark.parametrize("value", [b"x", float("nan"), float("inf"), ("a",), {1: "a"}, {"a"}, object(),
                                   "a\x00", type("S", (str,), {})("sub"), type("I", (int,), {})(1)])
def test_values_that_are_not_plain_data_are_never_injected(value):
    with pytest.raises(ParameterError):
        injected_source({"x": value})


@pytest.mark.parametrize("name", ["x = 1\nimport os", "import", "a b", "1a", ""])
def test_names_that_are_not_identifiers_are_never_injected(name):
    with pytest.raises(ParameterError, match="not a Python identifier"):
        injected_source({name: 1})


def test_hostile_text_in_every_text_parameter_runs_no_code_in_the_kernel(tmp_path):
    """The whole path: a params file whose text values try every way out of a string literal; the report
    runs the notebook, and the executed notebook's injected cell holds exactly the values given."""
    canary = tmp_path / "CANARY"
    values = [h.replace("CANARY", str(canary)) for h in HOSTILE]
    # the report refuses names the log does not have (issue 30): here the log's benchmarks, models and suites are
    # the hostile texts themselves, and the conventions map every hostile text to a paper
    names = [v for v in values if v.strip()]
    log = write_jsonl(tmp_path / "log.jsonl", [run_record(benchmark=v, model=v, suite=v) for v in names])
    params = tmp_path / "params.yaml"
    import yaml

    params.write_text(yaml.safe_dump({"benchmarks": names, "models": names[:3], "suites": names[3:],
                                      "conventions": {v: "neutral" for v in values}, "n_boot": 20},
                                     allow_unicode=True))
    run_report(log, tmp_path / "out", params_file=params, notebooks=["quickstart"])
    assert not canary.exists()
    import nbformat

    nb = nbformat.read(str(tmp_path / "out" / "quickstart.ipynb"), as_version=4)
    cell = next(c for c in nb.cells if "injected-parameters" in c.metadata.get("tags", []))
    injected = _run_cell(cell.source)
    given, _ = read_params_file(params)  # what YAML makes of the text (it reads U+0085 as a line break)
    assert given["benchmarks"] == names and len(given["conventions"]) == len(values)
    assert {k: injected[k] for k in given} == given and injected["runs"] == str(log)
