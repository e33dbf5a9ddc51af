"""``idea hosts list|check``: the SSH hosts of the user's hosts.json, and whether agents can
run on one (DESIGN.md §16)."""

from __future__ import annotations

from idea.cli.parser import EXIT_FAILURE


def hosts_list(*, as_json: bool) -> int:
    import json

    from idea.app.bootstrap.hosts import host_store

    store = host_store()
    hosts = store.all()
    rows = [
        {
            "name": name,
            "ssh": host.ssh_target,
            "identity_file": host.identity_file,
            "root": host.root,
            "idea": host.idea,
        }
        for name, host in sorted(hosts.items())
    ]
    if as_json:
        print(json.dumps(rows, ensure_ascii=False, indent=2))
    elif not rows:
        print(f"No host configured (add one to {store.path})")
    else:
        for row in rows:
            print(f"{row['name']:<16} {row['ssh']:<32} {row['root']}")
    return 0


def hosts_check(name: str, *, as_json: bool) -> int:
    """Exit 0 when every check passes, else 1; an unknown host is a usage error (2)."""
    import asyncio
    import json

    from idea.app.bootstrap.hosts import check_host

    results = asyncio.run(check_host(name))
    if as_json:
        ok = all(r.status == "ok" for r in results)
        report = {"host": name, "ok": ok, "checks": [r.to_json() for r in results]}
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        for r in results:
            detail = f"{r.code}: {r.detail}" if r.code else r.detail
            print(f"{r.check:<11} {r.status:<8} {detail}")
    return 0 if all(r.status == "ok" for r in results) else EXIT_FAILURE
