"""The documentation site (issue 14): it builds with ``mkdocs build --strict``, every page of the
nav is built, every relative link and image of the built pages exists, the runnable examples of
the getting-started and KanesMethod pages run, and the generated pages (the CLI reference, the
table of the papers' equations) are what their generators produce now.

When a test here fails because a page is out of date, regenerate it:
``.venv/bin/python docs/gen_cli_reference.py`` or ``.venv/bin/python docs/gen_theory_index.py``.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
CONFIG = ROOT / "mkdocs.yml"
RUNNABLE_PAGES = ["getting_started.md", "from_kanesmethod.md", "from_urdf.md", "fmu.md",
                  "jax.md", "simulation.md", "control.md", "gallery/identification.md",
                  "bondgraphs.md"]
RUNNABLE_MARK = "# runnable"


def _generator(name: str):
    """A docs/ script imported as a module."""
    spec = importlib.util.spec_from_file_location(f"_docs_{name}", DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    assert spec.loader is not None
    spec.loader.exec_module(module)
    return module


def _nav_pages() -> list[str]:
    """Every Markdown file named in the nav of mkdocs.yml."""
    yaml = pytest.importorskip("yaml")
    config = yaml.safe_load(CONFIG.read_text(encoding="utf-8"))
    pages: list[str] = []

    def walk(item) -> None:
        if isinstance(item, str):
            pages.append(item)
        elif isinstance(item, list):
            for x in item:
                walk(x)
        elif isinstance(item, dict):
            for x in item.values():
                walk(x)

    walk(config["nav"])
    return pages


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    pytest.importorskip("mkdocs")
    out = tmp_path_factory.mktemp("site")
    run = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "-f", str(CONFIG), "-d", str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )
    assert run.returncode == 0, (
        f"mkdocs build --strict failed:\n{run.stdout[-4000:]}\n{run.stderr[-4000:]}")
    return out


# ------------------------------------------------------------------------------------ the site
def test_every_page_of_the_nav_is_built(site):
    pages = _nav_pages()
    assert len(pages) == len(set(pages)), "a page is listed twice in the nav"
    for page in pages:
        assert (DOCS / page).is_file(), f"the nav names {page}, which does not exist"
        built = site / Path(page).with_suffix(".html")
        assert built.is_file(), f"{page} was not built ({built} missing)"


def test_every_markdown_page_is_in_the_nav():
    pages = set(_nav_pages())
    for path in DOCS.rglob("*.md"):
        name = path.relative_to(DOCS).as_posix()
        assert name in pages, f"docs/{name} is not in the nav of mkdocs.yml"


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        for key in ("href", "src"):
            if attrs.get(key):
                self.links.append(attrs[key])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_relative_link_and_image_exists(site):
    pages = {p: _parse(p) for p in site.rglob("*.html")}
    checked = 0
    for page, parsed in pages.items():
        for link in parsed.links:
            parts = urlsplit(link)
            if parts.scheme or parts.netloc or link.startswith(("mailto:", "data:")):
                continue
            if not parts.path:  # an anchor on the same page
                if parts.fragment and page.name != "search.html":
                    assert unquote(parts.fragment) in parsed.ids, (
                        f"{page.relative_to(site)}: no anchor #{parts.fragment}")
                continue
            path = unquote(parts.path)  # 404.html links from the site's root ("/img/...")
            target = (site / path.lstrip("/") if path.startswith("/") else page.parent / path)
            target = target.resolve()
            if target.is_dir():
                target = target / "index.html"
            assert target.exists(), f"{page.relative_to(site)} links to missing {link}"
            if parts.fragment and target.suffix == ".html" and target in pages:
                assert unquote(parts.fragment) in pages[target].ids, (
                    f"{page.relative_to(site)}: {link} names a missing anchor")
            checked += 1
    assert checked > 100


def test_the_site_loads_nothing_from_the_network(site):
    """No CDN scripts or styles (highlight.js, MathJax): the site works offline."""
    for page in site.rglob("*.html"):
        text = page.read_text(encoding="utf-8")
        for tag in re.findall(r"<(?:script|link)\b[^>]*>", text):
            assert "://" not in tag, f"{page.name} loads {tag}"


# ------------------------------------------------------------------------ runnable examples
def _runnable(page: str) -> list[str]:
    text = (DOCS / page).read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    return [b for b in blocks if b.startswith(RUNNABLE_MARK)]


RUNNER = """
import sys, traceback
import matplotlib
matplotlib.use("Agg")
pages = {pages!r}
for page, blocks in pages.items():
    namespace = {{"__name__": "__main__"}}   # one namespace per page, in reading order
    for k, block in enumerate(blocks, 1):
        try:
            exec(compile(block, f"{{page}}, runnable example {{k}}", "exec"), namespace)
        except Exception:
            traceback.print_exc()
            print(f"FAILED: {{page}}, runnable example {{k}}", file=sys.stderr)
            sys.exit(1)
"""


def test_runnable_examples_run(tmp_path):
    """The ``# runnable`` Python blocks of the getting-started and KanesMethod pages, page by
    page in reading order (later blocks use the names of earlier ones, as a reader typing them
    would), in one fresh interpreter."""
    pages = {page: _runnable(page) for page in RUNNABLE_PAGES}
    for page, blocks in pages.items():
        assert len(blocks) >= 2, f"{page} has too few runnable examples"
    script = tmp_path / "examples.py"
    script.write_text(RUNNER.format(pages=pages), encoding="utf-8")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                         text=True, timeout=240)
    assert run.returncode == 0, f"an example failed:\n{run.stderr[-4000:]}"


# ------------------------------------------------------------------------ generated pages
def test_cli_reference_is_up_to_date():
    pytest.importorskip("click")
    generated = _generator("gen_cli_reference").generate()
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert current == generated, (
        "docs/cli.md is out of date with the commands of kanebond.cli: "
        "run .venv/bin/python docs/gen_cli_reference.py")


def test_cli_reference_names_every_command():
    from kanebond.cli import cli

    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    for name in cli.commands:
        assert f"## `kanebond {name}`" in text, (
            f"docs/cli.md lacks `kanebond {name}`: run .venv/bin/python docs/gen_cli_reference.py")


def test_theory_table_is_up_to_date():
    gen = _generator("gen_theory_index")
    page = (DOCS / "theory.md").read_text(encoding="utf-8")
    assert gen.page_with_table(page) == page, (
        "the table of docs/theory.md is out of date with the citations in src/kanebond: "
        "run .venv/bin/python docs/gen_theory_index.py")
    table = page.split(gen.START)[1].split(gen.END)[0]
    found = gen.citations()
    assert len(found) > 50
    for paper, key in found:
        assert f"| [{paper}] | {key} |" in table, f"[{paper}] {key} is missing from theory.md"
        assert gen._meaning(paper, key), f"[{paper}] {key} has no description in the generator"


def test_the_citation_pattern_reads_ranges_and_lists():
    gen = _generator("gen_theory_index")
    text = "([PA21] (15), (55)); [PA21] (53)–(57); [PA-VP] (1)-(3) and [PA21] Figs. 1–6, §3.8"
    keys = [(m[1], k) for m in gen.CITATION.finditer(text) for k in gen._expand(m[1], m)]
    assert keys == [("PA21", "(15)"), ("PA21", "(55)"), ("PA21", "(53)–(57)"),
                    ("PA-VP", "(1)–(3)"), ("PA21", "Figs. 1–6")]


# ------------------------------------------------------------------------ the gallery
def test_gallery_pictures_exist_and_are_small():
    gallery = DOCS / "gallery"
    pages = sorted(gallery.glob("*.md"))
    assert len(pages) >= 13  # the index and twelve systems
    for page in pages:
        for ref in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page.read_text(encoding="utf-8")):
            image = (page.parent / ref).resolve()
            assert image.is_file(), f"{page.name}: missing picture {ref}"
            assert image.stat().st_size < 200_000, f"{ref} is over 200 KB"
    images = list((DOCS / "img" / "gallery").iterdir())
    assert sum(p.stat().st_size for p in images) < 3_000_000
    for image in images:
        assert any(image.name in p.read_text(encoding="utf-8") for p in pages), (
            f"docs/img/gallery/{image.name} is on no gallery page")


def test_gallery_model_files_named_on_the_pages_exist():
    for page in (DOCS / "gallery").glob("*.md"):
        for path in re.findall(r"`(src/kanebond/models/files/[^`\s]+\.toml)`",
                               page.read_text(encoding="utf-8")):
            assert (ROOT / path).is_file(), f"{page.name} names {path}, which does not exist"
