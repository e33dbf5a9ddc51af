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


TYPING_ONLY = {"__future__", "_typeshed"}


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
        # _typeshed: the standard library's typing stubs (imported under TYPE_CHECKING only).
        if (root in sys.stdlib_module_names and root != "asyncio") or root in TYPING_ONLY:
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


def import_cycles(graph) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan), each a cycle of imports."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if not imported.startswith("idea"):
                continue
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in on_stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == module:
                    break
            if len(group) > 1:
                cycles.append(sorted(group))

    for module in sorted(m for m in graph.modules if m.startswith("idea")):
        if module not in index:
            visit(module)
    return cycles


def test_no_import_cycle_between_modules():
    grimp = pytest.importorskip("grimp")
    graph = grimp.build_graph("idea")
    assert import_cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    grimp = pytest.importorskip("grimp")
    graph = grimp.ImportGraph()
    for name in ("idea.a", "idea.b", "idea.c"):
        graph.add_module(name)
    graph.add_import(importer="idea.a", imported="idea.b")
    graph.add_import(importer="idea.b", imported="idea.c")
    graph.add_import(importer="idea.c", imported="idea.a")
    assert import_cycles(graph) == [["idea.a", "idea.b", "idea.c"]]
