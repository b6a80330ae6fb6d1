"""A griffe extension for the API pages (mkdocs.yml loads it; nothing in src/ imports it).

kanebond's docstrings are NumPy-style with reST roles (``:func:`sweep```,
``:class:`~kanebond.KaneSystem```) and one ``.. math::`` block. mkdocstrings renders docstrings
as Markdown, where those would show as raw text, so before they are parsed this extension

* turns every role into a code span that links to the object where the API pages document it
  (an ``optional`` autoref: a name the pages do not document stays plain code, with no
  warning); a relative name (``Trajectory.energy_audit``, ``sweep``) is looked up from the
  object that cites it outwards, as Sphinx does;
* drops the ``.. math::`` directive line, leaving its indented body a code block;
* turns a reST simple table (columns framed by ``====`` lines) into a Markdown table;
* starts a "Notes" section where prose follows a Parameters list after a blank line, so that
  the NumPy parser does not read its first words as parameter names;
* gives each name of a grouped entry (``rtol, atol, max_step:``) an entry of its own, with the
  shared description, so that each shows its own default;
* reads ``t : (N,) times.`` (a name, then its description on the same line, as some
  Attributes lists are written) as a description rather than a type.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:func|class|meth|attr|mod|data|obj|exc):`(?P<body>[^`]+)`")
SECTION = re.compile(r"^(?P<title>[A-Z][A-Za-z ]+)\n-{3,}$", re.M)
PARAM = re.compile(r"^\*{0,2}[A-Za-z_]\w*(\s*,\s*\*{0,2}[A-Za-z_]\w*)*\s*(:.*)?$")
LISTS = {"Parameters", "Other Parameters", "Attributes"}


def _scopes(obj: Any) -> list[Any]:
    """The object, then its parents up to the package: where a relative name is looked up."""
    out = []
    while obj is not None:
        out.append(obj)
        obj = obj.parent
    return out


def _resolve(target: str, obj: Any) -> str:
    """The full path of ``target`` as cited from ``obj`` (best effort)."""
    if target.startswith("kanebond"):
        return target
    first = target.split(".")[0]
    for scope in _scopes(obj):
        try:
            if first in scope.members:
                return f"{scope.path}.{target}"
        except Exception:  # noqa: BLE001 - an alias that cannot be resolved: try the next scope
            continue
    return f"{obj.module.path}.{target}" if obj.module is not None else target


def _role(match: re.Match, obj: Any) -> str:
    body = match["body"].strip()
    explicit = re.fullmatch(r"(?P<title>.+?)\s*<(?P<target>[^>]+)>", body)
    if explicit:
        title, target = explicit["title"], explicit["target"]
    else:
        target = body.lstrip("~")
        title = target.rsplit(".", 1)[-1] if body.startswith("~") else target
    target = target.lstrip("~.").removesuffix("()")
    identifier = _resolve(target, obj)
    return f'<autoref identifier="{identifier}" optional><code>{title}</code></autoref>'


INLINE = re.compile(r"^(?P<names>\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)*) : (?P<text>.+)$")


def _inline_description(lines: list[str], k: int) -> str | None:
    """``name : text`` where the text is a description, not a type: it ends a sentence, runs
    on to an indented line, or is longer than a type is written."""
    match = INLINE.match(lines[k])
    if not match:
        return None
    text = match["text"].strip()
    runs_on = k + 1 < len(lines) and lines[k + 1].startswith(" ") and lines[k + 1].strip()
    if text.endswith(".") or runs_on or len(text.split()) > 4:
        return f"{match['names']}:\n    {text}"
    return None


GROUP = re.compile(r"^(?P<names>\*{0,2}\w+(?:\s*,\s*\*{0,2}\w+)+)\s*:(?P<rest>.*)$")


def _split_groups(lines: list[str], k: int) -> tuple[list[str], int]:
    """The entry starting at ``lines[k]`` (``a, b:`` and its indented description) once per
    name, and the index of the line after it."""
    match = GROUP.match(lines[k])
    end = k + 1
    while end < len(lines) and (lines[end].startswith(" ") or not lines[end].strip()):
        end += 1
    while end > k + 1 and not lines[end - 1].strip():  # trailing blank lines stay outside
        end -= 1
    out: list[str] = []
    for name in (n.strip() for n in match["names"].split(",")):
        out += [f"{name}:{match['rest']}", *lines[k + 1:end]]
    return out, end


def _fix_lists(text: str) -> str:
    """The Parameters and Attributes lists as the NumPy parser should read them (see above)."""
    lines = text.split("\n")
    out: list[str] = []
    section = None
    k = 0
    while k < len(lines):
        line = lines[k]
        nxt = lines[k + 1] if k + 1 < len(lines) else ""
        if line.strip() and re.fullmatch(r"-{3,}", nxt.strip()) and not line.startswith(" "):
            section = line.strip()
            out += [line, nxt]
            k += 2
            continue
        if (section in LISTS and line and not line.startswith(" ") and k > 0
                and not lines[k - 1].strip() and not PARAM.match(line)):
            out += ["Notes", "-----"]
            section = "Notes"
        elif section in LISTS and (inline := _inline_description(lines, k)) is not None:
            lines[k:k + 1] = inline.split("\n")
            continue
        elif section in LISTS and GROUP.match(line):
            entries, k = _split_groups(lines, k)
            out += entries
            continue
        out.append(line)
        k += 1
    return "\n".join(out)


RULE = re.compile(r"^=+( +=+)+$")


def _cells(line: str, spans: list[tuple[int, int]]) -> list[str]:
    cells = [line[a:b].strip() for a, b in spans[:-1]]
    cells.append(line[spans[-1][0]:].strip())
    return [c.replace("|", "\\|") for c in cells]


def _simple_tables(text: str) -> str:
    """reST simple tables (a rule, a header, a rule, rows, a rule) as Markdown tables."""
    lines = text.split("\n")
    out: list[str] = []
    k = 0
    while k < len(lines):
        if (RULE.match(lines[k]) and k + 2 < len(lines) and lines[k + 2] == lines[k]
                and lines[k] in lines[k + 3:]):
            spans = [m.span() for m in re.finditer(r"=+", lines[k])]
            end = lines.index(lines[k], k + 3)
            rows = [_cells(lines[k + 1], spans)]
            rows += [_cells(line, spans) for line in lines[k + 3:end] if line.strip()]
            out.append("| " + " | ".join(rows[0]) + " |")
            out.append("|" + "---|" * len(spans))
            out += ["| " + " | ".join(row) + " |" for row in rows[1:]]
            k = end + 1
            continue
        out.append(lines[k])
        k += 1
    return "\n".join(out)


def rewrite(text: str, obj: Any) -> str:
    """A docstring of ``obj`` as Markdown the NumPy parser reads as meant."""
    text = re.sub(r"^[ \t]*\.\. math::[ \t]*\n", "", text, flags=re.M)
    text = _simple_tables(text)
    text = ROLE.sub(lambda m: _role(m, obj), text)
    return _fix_lists(text)


class RestRoles(griffe.Extension):
    """Rewrites the docstrings of a package once it is loaded (every name is known then)."""

    def on_package(self, *, pkg: griffe.Module, **kwargs: Any) -> None:
        seen: set[int] = set()

        def walk(obj: Any) -> None:
            if obj.is_alias or id(obj) in seen:
                return
            seen.add(id(obj))
            if obj.docstring is not None:
                obj.docstring.value = rewrite(obj.docstring.value, obj)
            for member in list(obj.members.values()):
                walk(member)

        walk(pkg)
