"""What git prints, read (sans-I/O): the raw listing of a diff, its numstat, the lines a patch
adds and deletes per file, the conflicted files of ``git merge-tree``, and a short list of files
for a message."""

from __future__ import annotations

STATUS = {  # a raw listing's status letter -> FileChange status
    "A": "added",
    "M": "modified",
    "D": "deleted",
    "R": "renamed",
    "C": "added",
    "T": "modified",
}
MAX_LISTED = 20


def parse_raw(out: str) -> list[tuple[str, str]]:
    """``git diff --raw -z``: ``:<modes> <ids> <status>`` then the path, in git's order."""
    fields = out.split("\0")
    files: list[tuple[str, str]] = []
    i = 0
    while i + 1 < len(fields):
        if fields[i].startswith(":"):
            status = fields[i].split()[-1][:1]
            files.append((fields[i + 1], STATUS.get(status, "modified")))
            i += 2
        else:
            i += 1
    return files


def count_patch(patch: str, files: int) -> list[tuple[int, int]]:
    """Added and deleted lines of each of ``files`` files of a whole patch, in its order (the
    raw listing's): only lines inside hunks count, so a header (``+++ b/x``) is never taken for
    content; a file without a hunk (binary, mode only) counts 0 and 0."""
    counts: list[list[int]] = []
    in_hunk = False
    for line in patch.split("\n"):
        if line.startswith("diff --git "):
            counts.append([0, 0])
            in_hunk = False
        elif line.startswith("@@"):
            in_hunk = True
        elif in_hunk and counts and line[:1] in ("+", "-"):
            counts[-1][0 if line[0] == "+" else 1] += 1
    counts += [[0, 0]] * (files - len(counts))
    return [(added, deleted) for added, deleted in counts[:files]]


def parse_numstat(out: str) -> dict[str, tuple[int, int]]:
    counts: dict[str, tuple[int, int]] = {}
    for record in out.split("\0"):
        parts = record.split("\t", 2)
        if len(parts) == 3:
            counts[parts[2]] = (_count(parts[0]), _count(parts[1]))
    return counts


def _count(text: str) -> int:
    return int(text) if text.isdigit() else 0  # "-" for a binary file


def conflicted_files(out: str) -> list[str]:
    """``git merge-tree --write-tree --name-only``: the tree id, then the conflicted files, then
    a blank line and the messages."""
    lines = out.splitlines()[1:]
    files: list[str] = []
    for line in lines:
        if not line:
            break
        files.append(line)
    return files


def listed(files: list[str]) -> str:
    shown = ", ".join(files[:MAX_LISTED])
    more = len(files) - MAX_LISTED
    return shown + (f" and {more} more" if more > 0 else "") if files else "some files"
