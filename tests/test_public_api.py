"""The public API: one namespace, loaded lazily, and what loads when.

``sessiontools/__init__.py`` names each public name three times, each for a reader that needs
its own form: the ``TYPE_CHECKING`` imports (type checkers), the ``_EXPORTS`` table (lazy
loading), ``__all__`` (a literal, for strict type checkers). They must agree, and each name must
be what the module the table names defines there (httpx's test_exported_members does the
same)."""

from __future__ import annotations

import ast
import gzip
import importlib
import subprocess
import sys
from pathlib import Path

import pytest

import sessiontools
from tests.helpers import REPO, SESSIONS

INIT = REPO / "sessiontools" / "__init__.py"


def _init_tree() -> ast.Module:
    return ast.parse(INIT.read_text())


def _type_checking_imports() -> dict[str, str]:
    """name -> module, from the ``if TYPE_CHECKING:`` block."""
    found: dict[str, str] = {}
    for node in _init_tree().body:
        if isinstance(node, ast.If) and getattr(node.test, "id", "") == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.level == 1, ast.dump(imp)
                for alias in imp.names:
                    assert alias.asname is None, alias.name
                    assert alias.name not in found, f"{alias.name} imported twice"
                    found[alias.name] = f".{imp.module}"
    return found


def _dunder_all() -> list[str]:
    for node in _init_tree().body:
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__":
            value = ast.literal_eval(node.value)
            assert isinstance(value, list)
            return value
    raise AssertionError("no literal __all__")


def test_the_three_lists_agree() -> None:
    imports = _type_checking_imports()
    table = {name: module for module, names in sessiontools._EXPORTS.items() for name in names}
    names = _dunder_all()
    assert len(names) == len(set(names)), "a name twice in __all__"
    assert imports == table
    assert set(names) == set(table) | {"__version__"}
    assert names == sessiontools.__all__


@pytest.mark.parametrize("name", sorted(set(sessiontools.__all__) - {"__version__"}))
def test_each_name_resolves_to_its_modules_definition(name: str) -> None:
    module = importlib.import_module(sessiontools._LAZY[name], "sessiontools")
    assert getattr(sessiontools, name) is getattr(module, name)
    # defined there (not imported into it), so the table names where to look
    source = Path(module.__file__ or "").read_text()
    defined = {
        target.id
        for node in ast.parse(source).body
        for target in (
            node.targets
            if isinstance(node, ast.Assign)
            else [node.target]
            if isinstance(node, ast.AnnAssign)
            else []
        )
        if isinstance(target, ast.Name)
    } | {
        node.name
        for node in ast.parse(source).body
        if isinstance(node, ast.FunctionDef | ast.ClassDef)
    }
    assert name in defined, f"{name} is not defined in {module.__name__}"
    # and nowhere else in the package: one public name, one thing
    elsewhere = []
    for path in (REPO / "sessiontools").rglob("*.py"):
        if path == Path(module.__file__ or "") or path == INIT:
            continue
        if path == REPO / "sessiontools" / "dask.py":
            continue  # the dask extra's namespace: its read_costs is the cluster's, by design
        for node in ast.parse(path.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and node.name == name:
                elsewhere.append(str(path))
    assert not elsewhere, f"{name} is also defined in {elsewhere}"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing_here'"):
        sessiontools.nothing_here  # type: ignore[attr-defined]  # noqa: B018


def test_dir_lists_the_public_names_before_they_load() -> None:
    code = "import sessiontools; print(' '.join(dir(sessiontools)))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO)
    assert out.stdout.split() == sorted(_dunder_all())


def _modules_loaded_by(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert out.returncode == 0, out.stderr
    return set(out.stdout.split())


HEAVY = {
    "pandas",
    "genai_prices",
    "jinja2",
    "numpy",
    "urllib3",
    "pydantic",
    "sqlite3",
    # the dask extra: only sessiontools.dask's reads and `cost --scheduler` load them
    "dask",
    "distributed",
    "fsspec",
}


def test_import_sessiontools_loads_no_stage() -> None:
    loaded = _modules_loaded_by("import sessiontools")
    ours = {m for m in loaded if m.startswith("sessiontools")}
    assert ours == {"sessiontools", "sessiontools._version"}
    assert not loaded & HEAVY


def test_sessiontools_otel_loads_neither_pandas_nor_genai_prices() -> None:
    log = SESSIONS / "01_one_run_tool.jsonl"
    code = (
        "import sys, io\n"
        "from sessiontools._cli.main import main\n"
        f"sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        f"assert main(['otel', {str(log)!r}]) == 0\n"
        "sys.stdout = sys.__stdout__"
    )
    loaded = _modules_loaded_by(code)
    assert not loaded & HEAVY, sorted(loaded & HEAVY)
    # of the cost stage, only the names of its groups and formats (for the command's flags)
    assert {m for m in loaded if m.startswith("sessiontools._cost.")} <= {
        "sessiontools._cost.names"
    }
    assert not {m for m in loaded if m.startswith("sessiontools._write")}
    assert "sessiontools._send.send" not in loaded  # sending loads only to send


def _otel_loads(log: Path) -> set[str]:
    return _modules_loaded_by(
        "import sys, io\n"
        "from sessiontools._cli.main import main\n"
        "sys.stdout = io.TextIOWrapper(io.BytesIO())\n"
        f"assert main(['otel', {str(log)!r}]) == 0\n"
        "sys.stdout = sys.__stdout__"
    )


# What `sessiontools otel` needs only for some logs: the checked decoders and the payload types
# they make (a line the typed decoding leaves), sending, and reading a log in two.
CHECKED = {
    "sessiontools._log.content",
    "sessiontools._log.decode",
    "sessiontools._log.gomerge",
    "sessiontools._log.rawjson",
    "sessiontools._log.encode",
}


def test_sessiontools_otel_on_a_log_agentloop_wrote_loads_no_checked_decoder() -> None:
    """Every line of a log as agentloop writes it is decoded the typed way, so the checked
    decoders and the 13 payload types of content (a dataclass each, which takes time to make)
    are not loaded; nor is anything of sending, nor pickle (only for a log read in two)."""
    loaded = _otel_loads(SESSIONS / "13_labels_and_pins.jsonl")
    assert "sessiontools._log.views" in loaded
    assert not loaded & CHECKED, sorted(loaded & CHECKED)
    assert {m for m in loaded if m.startswith("sessiontools._send.")} == {
        "sessiontools._send.names"
    }
    assert "pickle" not in loaded


def test_sessiontools_otel_on_an_empty_log_loads_neither_msgspec_nor_hashlib() -> None:
    """Typed decoding (msgspec) loads with the first line, the span ids' hash with the first
    span: an empty log needs neither."""
    loaded = _otel_loads(SESSIONS / "14_empty.jsonl")
    assert not loaded & {"msgspec", "sessiontools._log.views", "hashlib", "_hashlib"}
    assert not loaded & CHECKED


def test_sessiontools_otel_loads_gzip_only_for_a_compressed_log(tmp_path: Path) -> None:
    """gzip (and what it loads) is for a log compressed with it; a plain log reads without it
    (gzip and the patterns the reader compiles only for errors were 6.5 M of the 118 M
    instructions otel on an empty log adds to Python + orjson)."""
    assert "gzip" not in _otel_loads(SESSIONS / "13_labels_and_pins.jsonl")
    packed = tmp_path / "s.jsonl.gz"
    packed.write_bytes(gzip.compress((SESSIONS / "13_labels_and_pins.jsonl").read_bytes()))
    assert "gzip" in _otel_loads(packed)


def test_a_line_the_typed_decoding_leaves_loads_the_checked_decoders(tmp_path: Path) -> None:
    log = tmp_path / "future.jsonl"
    log.write_bytes(
        b'{"seq":1,"time":"2026-10-18T09:30:01Z","type":"checkpoint","checkpoint":{}}\n'
    )
    loaded = _otel_loads(log)
    assert {"sessiontools._log.decode", "sessiontools._log.content"} <= loaded


def test_import_sessiontools_dask_loads_neither_dask_nor_pandas() -> None:
    """The extra's module is light to import: dask, distributed, fsspec, pandas and numpy
    load when a read starts."""
    loaded = _modules_loaded_by("import sessiontools.dask")
    assert not loaded & HEAVY, sorted(loaded & HEAVY)
