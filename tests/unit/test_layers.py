"""Layer rules that import-linter cannot express: the domain uses the standard library only, and
the bridge and the endpoint leaf use nothing but the standard library and msgpack."""

import ast
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "idea"


def imported_roots(folder: Path) -> set[tuple[str, str]]:
    found = set()
    for path in folder.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found |= {(a.name, path.name) for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add((node.module, path.name))
    return found


@pytest.mark.parametrize(
    ("layer", "allowed"),
    [
        ("domain", {"idea.domain"}),
        ("endpoint", {"idea.endpoint", "msgpack"}),
        ("bridge", {"idea.endpoint", "idea.bridge", "msgpack"}),
    ],
)
def test_layer_imports_only_stdlib_and_allowed(layer, allowed):
    bad = []
    for module, where in imported_roots(PACKAGE / layer):
        root = module.split(".")[0]
        if (root in sys.stdlib_module_names and root != "asyncio") or root == "__future__":
            continue
        if not any(module == a or module.startswith(a + ".") for a in allowed):
            bad.append(f"{where}: {module}")
    assert not bad, f"idea.{layer} imports outside its layer: {bad}"


def test_domain_has_no_io_or_clock():
    forbidden = {
        "os",
        "time",
        "datetime",
        "threading",
        "asyncio",
        "subprocess",
        "socket",
        "uuid",
        "random",
        "pathlib",
        "shutil",
        "io",
    }
    used = {m.split(".")[0] for m, _ in imported_roots(PACKAGE / "domain")}
    assert not used & forbidden
