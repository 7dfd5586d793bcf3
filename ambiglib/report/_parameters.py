"""What the report was told: a notebook's declared parameters, a parameters file, and the cell that sets them.

A parameters file (``ambiglib report --params``) is untrusted text. Three rules keep it data:

* **Read as plain data.** YAML is parsed with a loader that refuses every tag (``!!binary``,
  ``!!python/object``, ``!custom``, ``%TAG`` directives), anchors and aliases, keys named twice and
  non-text keys; its scalars resolve only to JSON's types (text, integers, finite floats, true/false,
  null), so a date stays text and ``.nan`` is refused. Lists and mappings nest as in JSON.
* **Checked against what each notebook declares.** A value must have the type its parameter is
  declared with in the notebook's ``parameters`` cell (``n_boot: int = 2000`` takes an integer,
  ``models: "Optional[list]" = None`` a list or null); an unannotated parameter takes its default's
  type. Every problem is refused before any kernel starts, in one line naming the file, the
  parameter, the value and what is expected.
* **Injected as literals, proven so.** The injected cell is ``name = <Python literal>`` per
  parameter, and before it is written it is parsed back: every statement must be a plain assignment
  of a literal equal to the value given (:func:`injected_source`). papermill's own translator wrote
  a ``bytes`` value as ``"b'...'"`` unescaped, which let a params file run code in the kernel.
"""

from __future__ import annotations

import ast
import keyword
import math
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, cast

from ambiglib.errors import ParameterError

__all__ = ["ParameterError", "notebook_parameters", "read_params_file", "check_value", "injected_source",
           "inject_parameters", "RESERVED"]

#: The notebook parameter the report sets to its snapshot of the log
SNAPSHOT_PARAMETER = "snapshot"
#: Parameters the report sets itself for every notebook; a params file cannot.
RESERVED = ("out_dir", SNAPSHOT_PARAMETER)
#: A parameters file is a few lines; more than this is not one.
MAX_PARAMS_BYTES = 1 << 20
#: Nesting deeper than this is refused (a list of lists of ... is no parameter a notebook declares).
MAX_DEPTH = 32


def notebook_parameters(path: str | os.PathLike[str]) -> dict[str, dict[str, Any]]:
    """A notebook's parameters as papermill reads its ``parameters`` cell: name → ``{name,
    inferred_type_name, default, help}`` (nothing is executed)."""
    import papermill

    return dict(papermill.inspect_notebook(str(path)))


# ----------------------------------------------------------------------------- reading a parameters file


_YAML_TAG = "tag:yaml.org,2002:"


def _loader() -> type:
    """A YAML loader that builds only JSON's types: no tags, anchors or aliases; keys once, and text."""
    import yaml

    json_tags = {_YAML_TAG + kind for kind in ("bool", "int", "float", "null")}

    class PlainLoader(yaml.SafeLoader):  # type: ignore[misc]  # PyYAML ships no types here: SafeLoader is Any
        # scalars resolve to text unless they read as bool, int, float or null: no timestamp, merge or value
        yaml_implicit_resolvers = {first: [(tag, rx) for tag, rx in resolvers if tag in json_tags]
                                   for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()}

        def compose_node(self, parent: Any, index: Any) -> Any:
            event = self.peek_event()
            if isinstance(event, yaml.AliasEvent):
                raise _Refused(event.start_mark, f"alias *{event.anchor}: anchors and aliases are not plain data")
            anchor = getattr(event, "anchor", None)
            if anchor is not None:
                raise _Refused(event.start_mark, f"anchor &{anchor}: anchors and aliases are not plain data")
            tag = getattr(event, "tag", None)
            if tag is not None:
                shown = "!!" + tag[len(_YAML_TAG):] if tag.startswith(_YAML_TAG) else tag
                raise _Refused(event.start_mark, f"YAML tag {shown}: a parameters file holds plain values"
                                                 " (text, numbers, true/false, null, lists, mappings), no tags")
            return super().compose_node(parent, index)

        def construct_mapping(self, node: Any, deep: bool = False) -> dict[str, Any]:
            seen: set[str] = set()
            for key_node, _ in node.value:
                if not isinstance(key_node, yaml.ScalarNode):
                    raise _Refused(key_node.start_mark, "a key that is a list or a mapping: keys must be text")
                if key_node.tag != _YAML_TAG + "str":
                    raise _Refused(key_node.start_mark, f"key {key_node.value!r}: keys must be text")
                if key_node.value in seen:
                    raise _Refused(key_node.start_mark, f"key {key_node.value!r} given twice")
                seen.add(key_node.value)
            return cast("dict[str, Any]", super().construct_mapping(node, deep=deep))  # keys checked: text

    return PlainLoader


class _Refused(Exception):
    def __init__(self, mark: Any, what: str):
        super().__init__(what)
        self.line = mark.line + 1 if mark is not None else None
        self.what = what


def _short(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[:limit - 3] + "..."


def read_params_file(path: str | os.PathLike[str]) -> tuple[dict[str, Any], dict[str, dict[str, Any]]]:
    """Read a parameters file: (parameters for every notebook that has them, ``notebooks: {name: {...}}``).

    Raises :class:`ParameterError` naming the file and line for anything that is not plain data
    (see the module docstring); values are checked against the notebooks by :func:`check_parameters`.
    """
    import yaml

    path = Path(path)
    try:
        with open(path, "rb") as fh:
            raw = fh.read(MAX_PARAMS_BYTES + 1)
    except OSError as exc:
        raise ParameterError(f"{path}: not a readable parameters file ({exc.strerror or exc})") from exc
    if len(raw) > MAX_PARAMS_BYTES:
        raise ParameterError(f"{path}: a parameters file of more than {MAX_PARAMS_BYTES:,} bytes; is it the run log?")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ParameterError(f"{path}: not UTF-8 text (byte {exc.start}: {raw[exc.start:exc.start + 1]!r})") from exc
    try:
        data = yaml.load(text, Loader=_loader())  # the loader above builds JSON's types only
    except _Refused as exc:
        raise ParameterError(f"{path}:{exc.line}: {exc.what}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"{path}:{mark.line + 1}" if mark is not None else str(path)
        raise ParameterError(f"{where}: not readable as YAML ({getattr(exc, 'problem', None) or exc})") from None
    except RecursionError:
        raise ParameterError(f"{path}: nested too deep to be a parameters file") from None
    except ValueError as exc:  # e.g. an integer of more than 4,300 digits
        raise ParameterError(f"{path}: not a parameters file ({str(exc)[:120]})") from None
    data = {} if data is None else data
    if not isinstance(data, dict):
        raise ParameterError(f"{path}: parameters must be a mapping of name: value (got {type(data).__name__})")
    for key, value in data.items():
        plain_value(value, f"{path}: {key}")
    per_notebook = data.pop("notebooks", None) or {}
    if not isinstance(per_notebook, dict) or not all(isinstance(v, dict) for v in per_notebook.values()):
        raise ParameterError(f"{path}: 'notebooks' must map notebook names to parameter mappings")
    return data, per_notebook


# ----------------------------------------------------------------------------- values and declared types


def plain_value(value: Any, where: str, depth: int = 0) -> None:
    """Refuse anything but JSON's types (exactly: no subclasses), finite floats, text without NUL or lone
    surrogates, and text keys; ``where`` names the parameter in the message."""
    kind = type(value)
    if depth > MAX_DEPTH:
        raise ParameterError(f"{where}: nested more than {MAX_DEPTH} deep")
    if value is None or kind in (bool, int):
        return
    if kind is float:
        if not math.isfinite(value):
            raise ParameterError(f"{where}: {value!r} is not a finite number")
        return
    if kind is str:
        if "\x00" in value or any("\ud800" <= ch <= "\udfff" for ch in value):
            raise ParameterError(f"{where}: {_short(value)}: text with a NUL or a lone surrogate")
        return
    if kind is list:
        for i, item in enumerate(value):
            plain_value(item, f"{where}[{i}]", depth + 1)
        return
    if kind is dict:
        for key, item in value.items():
            if type(key) is not str:
                raise ParameterError(f"{where}: key {_short(key)}: keys must be text")
            plain_value(key, f"{where}: key", depth + 1)
            plain_value(item, f"{where}.{key}", depth + 1)
        return
    raise ParameterError(f"{where}: {_short(value)} is a {kind.__name__}; a parameter is text, a number,"
                         " true/false, null, a list or a mapping")


_BASE_TYPES: dict[str, tuple[type, ...]] = {
    "str": (str,), "int": (int,), "float": (int, float), "bool": (bool,), "list": (list,), "dict": (dict,),
    "List": (list,), "Dict": (dict,), "Sequence": (list,), "Mapping": (dict,), "NoneType": (type(None),),
}


def _accepted(declared: str) -> tuple[type, ...] | None:
    """The Python types a declared type name takes (None: any plain value, for a name we do not know)."""
    name = declared.strip().strip("'\"").replace(" ", "")
    optional = re.fullmatch(r"Optional\[(.*)\]", name)
    if optional:
        inner = _accepted(optional.group(1))
        return None if inner is None else inner + (type(None),)
    base = re.sub(r"\[.*\]$", "", name)  # List[str] -> List: the items are checked as plain values only
    return _BASE_TYPES.get(base)


def _default_type(default: str) -> tuple[type, ...] | None:
    """An unannotated parameter takes its default's type (``n = 5``: int); None default or no literal: any."""
    try:
        value = ast.literal_eval(default)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if value is None:
        return None
    return _BASE_TYPES.get(type(value).__name__)


def expected_types(spec: Mapping[str, Any]) -> tuple[type, ...] | None:
    """What a parameter of ``notebook_parameters`` takes, from its annotation or else its default."""
    declared = str(spec.get("inferred_type_name") or "None")
    if declared == "None":  # papermill's "no annotation"
        return _default_type(str(spec.get("default", "")))
    return _accepted(declared)


def _type_names(types: tuple[type, ...]) -> str:
    names = {str: "text", int: "an integer", float: "a number", bool: "true/false", list: "a list",
             dict: "a mapping", type(None): "null"}
    shown = [names[t] for t in types if not (t is int and float in types)]
    return " or ".join(shown)


def check_value(name: str, value: Any, spec: Mapping[str, Any], where: str) -> None:
    """Refuse a value its parameter's declared type does not take (bool is not an integer here), or one its
    parameter's meaning does not (:data:`LIMITS`: a count below 1, conventions that name no paper, a file
    that is not there)."""
    plain_value(value, f"{where}{name}")
    types = expected_types(spec)
    if types is not None:
        ok = isinstance(value, types) and not (isinstance(value, bool) and bool not in types)
        if not ok:
            declared = spec.get("inferred_type_name")
            declared = declared if declared and declared != "None" else f"default {spec.get('default')}"
            raise ParameterError(f"{where}{name}: {_short(value)} is not {_type_names(types)} (declared {declared})")
    if name in LIMITS and value is not None:
        fits, expected = LIMITS[name]
        if not fits(value):
            raise ParameterError(f"{where}{name}: {_short(value)} is not {expected}")


def _conventions_ok(value: Any) -> bool:
    from ambiglib.tables._shapes import CONVENTIONS

    return isinstance(value, dict) and all(isinstance(k, str) and v in CONVENTIONS for k, v in value.items())


def _max_n_boot() -> int:
    from ambiglib.stats import MAX_N_BOOT

    return MAX_N_BOOT


def _names_ok(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) and v for v in value)


#: what the bundled notebooks' parameters mean beyond their type: name -> (test, what is expected)
#: the largest pass@k's k and power simulation a notebook takes (n_boot's is stats.MAX_N_BOOT): each bound far
#: above any use (the papers' k is 3; 2,000 simulations put power within ±2 points), and below what runs for hours
MAX_K = 100
MAX_N_SIM = 100_000
LIMITS: dict[str, tuple[Any, str]] = {
    "n_boot": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= _max_n_boot(),
               f"a whole number of bootstrap replicates from 1 to {_max_n_boot():,}"),
    "n_sim": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_N_SIM,
              f"a whole number of simulations from 1 to {MAX_N_SIM:,}"),
    "k": (lambda v: isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= MAX_K,
          f"a whole number of attempts from 1 to {MAX_K}"),
    "seed": (lambda v: isinstance(v, int) and v >= 0, "a whole number, at least 0"),
    "conventions": (_conventions_ok, "a mapping of benchmark names to one of 'hil-bench', 'ambig-ds', 'lhaw',"
                                     " 'neutral'"),
    "benchmarks": (_names_ok, "a list of names"),
    "models": (_names_ok, "a list of names"),
    "suites": (_names_ok, "a list of names"),
    "selector_audit": (lambda v: v == "" or (isinstance(v, str) and os.path.isfile(v)),
                       "an existing file (relative to the folder the report is started in), or \"\""),
}


def check_parameters(params_file: Any, common: dict[str, Any], per_notebook: dict[str, dict[str, Any]],
                     declared: dict[str, dict[str, dict[str, Any]]], chosen: list[str]) -> None:
    """Refuse, before anything runs, a parameter no notebook has, a notebook that does not exist, or a
    value of a type its parameter does not take."""
    where = f"{params_file}: " if params_file else ""
    unknown_nb = sorted(set(per_notebook) - set(declared))
    if unknown_nb:
        raise ParameterError(f"{where}no notebook named {', '.join(map(repr, unknown_nb))}; the notebooks are"
                             f" {', '.join(sorted(declared))}")
    every = sorted({p for name in chosen for p in declared[name]} - set(RESERVED))
    for key, value in common.items():
        if key not in every:
            raise ParameterError(f"{where}unknown parameter {key!r}: no notebook of the report has it; the"
                                 f" parameters are {', '.join(every)}")
        for name in chosen:  # the value goes to every chosen notebook that has the parameter
            if key in declared[name]:
                check_value(key, value, declared[name][key], where)
    for name, params in per_notebook.items():
        for key, value in params.items():
            if key == "runs":
                raise ParameterError(f"{where}notebooks: {name}: 'runs' is one run log for the whole report (set"
                                     " it at the top level or with --runs)")
            if key not in declared[name] or key in RESERVED:
                raise ParameterError(f"{where}notebooks: {name}: unknown parameter {key!r}; {name} has"
                                     f" {', '.join(p for p in declared[name] if p not in RESERVED)}")
            check_value(key, value, declared[name][key], f"{where}notebooks: {name}: ")


# ----------------------------------------------------------------------------- the injected cell


def injected_source(parameters: Mapping[str, Any]) -> str:
    """The code of the injected parameters cell: one ``name = <literal>`` line per parameter.

    Every value must be plain data (:func:`plain_value`); its ``repr`` is then a Python literal. The
    code is parsed back before it is returned, and must be nothing but assignments of literals equal
    to the values given, so no value can become code, whatever it holds.
    """
    lines = ["# Parameters (injected by ambiglib report: each value a Python literal)"]
    for name, value in parameters.items():
        if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
            raise ParameterError(f"parameter name {_short(name)}: not a Python identifier")
        plain_value(value, name)
        lines.append(f"{name} = {value!r}")
    source = "\n".join(lines) + "\n"
    _prove_literal(source, parameters)
    return source


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same types all the way down (True == 1 and 1 == 1.0 in Python)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_same, a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(_same(a[k], b[k]) for k in a)
    return bool(a == b)  # plain Python values (a literal's): == gives a bool


def _prove_literal(source: str, parameters: Mapping[str, Any]) -> None:
    tree = ast.parse(source)
    names = list(parameters)
    if len(tree.body) != len(names):
        raise ParameterError(f"injected parameters: {len(tree.body)} statements for {len(names)} parameters")
    for stmt, name in zip(tree.body, names):
        if not (isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name)
                and stmt.targets[0].id == name):
            raise ParameterError(f"injected parameters: {name}: not a plain assignment")
        try:
            value = ast.literal_eval(stmt.value)
        except ValueError:
            raise ParameterError(f"injected parameters: {name}: not a literal") from None
        if not _same(value, parameters[name]):
            raise ParameterError(f"injected parameters: {name}: the literal does not read back as the value")


def inject_parameters(nb: Any, parameters: Mapping[str, Any]) -> Any:
    """Put the parameters cell into a notebook (nbformat v4) where papermill would: in place of an
    ``injected-parameters`` cell, else after the ``parameters`` cell, else first; and record the values in
    ``metadata.papermill.parameters`` as papermill does."""
    import nbformat

    cell = nbformat.v4.new_code_cell(source=injected_source(parameters))
    cell.metadata["tags"] = ["injected-parameters"]

    def tagged(tag: str) -> int:
        return next((i for i, c in enumerate(nb.cells) if tag in c.get("metadata", {}).get("tags", [])), -1)

    injected, declared = tagged("injected-parameters"), tagged("parameters")
    if injected >= 0:
        nb.cells[injected] = cell
    else:
        nb.cells.insert(declared + 1, cell)  # declared is -1 when there is no parameters cell: first
    nb.metadata.setdefault("papermill", {})["parameters"] = dict(parameters)
    return nb
