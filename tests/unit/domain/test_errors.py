"""The error tree: one stable code per class, and the module docstring draws every class."""

import idea.domain.errors as errors


def all_errors() -> list[type[errors.IdeaError]]:
    found: list[type[errors.IdeaError]] = []
    todo = [errors.IdeaError]
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return [cls for cls in found if cls.__module__ == errors.__name__]


def test_every_code_belongs_to_one_class():
    codes: dict[str, str] = {}
    for cls in all_errors():
        if cls is errors.Internal:
            continue  # the base's default code is Internal's
        assert codes.setdefault(cls.code, cls.__name__) == cls.__name__, cls.code


def test_the_docstring_draws_every_class_with_its_code():
    doc = errors.__doc__ or ""
    for cls in all_errors():
        line = next((row for row in doc.splitlines() if f" {cls.__name__} " in row), "")
        assert line, f"{cls.__name__} is missing from the tree in errors.py's docstring"
        if cls is not errors.IdeaError:
            assert cls.code in line.split(), f"{cls.__name__}: {cls.code} not on its line"


def test_host_errors_name_the_host_in_their_details():
    error = errors.HostUnreachable("m", host="lab", address="[::1]:22")
    assert error.to_dict() == {
        "code": "HOST_UNREACHABLE",
        "message": "m",
        "host": "lab",
        "address": "[::1]:22",
    }
    assert isinstance(error, errors.Unavailable)
    assert isinstance(
        errors.HostKeyUnknown("m", host="h", address="a", fingerprint="f"), errors.Forbidden
    )
