"""Every chapter page's Colab and Binder launch buttons open a notebook committed here.

Read from the built pages (``_build/html``): each page built from ``notebooks/`` carries one
Colab link and one Binder link; both name this repository and branch (``_config.yml``) and the
page's own ``notebooks/<page>.ipynb``, which must be committed (``git ls-files``). Binder's link
needs Binder's environment (``binder/``) committed too.
"""

import re
import subprocess
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
BUILD = ROOT / "_build" / "html"
CONFIG = yaml.safe_load((ROOT / "_config.yml").read_text(encoding="utf-8"))
REPO = urlparse(CONFIG["repository"]["url"]).path.strip("/")
BRANCH = CONFIG["repository"]["branch"]


def toc_files():
    """Every file of the table of contents, without extension, in order."""
    toc = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
    found = []

    def walk(node):
        if isinstance(node, dict):
            for key in ("root", "file"):
                if key in node:
                    found.append(node[key])
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk(toc)
    return found


def committed():
    run = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True)
    return set(run.stdout.splitlines())


CHAPTERS = [page for page in toc_files() if page.startswith("notebooks/")]


def launch_links(html: str):
    """(colab, binder) hrefs of a built page."""
    hrefs = re.findall(r'href="([^"]+)"', html)
    colab = [h for h in hrefs if h.startswith(CONFIG["launch_buttons"]["colab_url"])]
    binder = [h for h in hrefs if h.startswith(CONFIG["launch_buttons"]["binderhub_url"])]
    return colab, binder


def colab_target(href):
    match = re.fullmatch(r"https://colab\.research\.google\.com/github/([^/]+/[^/]+)/blob/([^/]+)/(.+)",
                         href.replace("&amp;", "&"))
    assert match, href
    return match.groups()


def binder_target(href):
    url = urlparse(href.replace("&amp;", "&"))
    match = re.fullmatch(r"/v2/gh/([^/]+/[^/]+)/([^/?]+)", url.path)
    assert match, href
    urlpath = parse_qs(url.query)["urlpath"][0]
    assert urlpath.startswith("lab/tree/"), href
    return (*match.groups(), urlpath[len("lab/tree/"):])


def test_every_chapter_is_built():
    assert CHAPTERS, "no notebooks in _toc.yml"
    if not (BUILD / "index.html").exists():
        pytest.fail("the book is not built: run `make book` first")
    for page in CHAPTERS:
        assert (BUILD / f"{page}.html").exists(), f"{page}.html was not built"


@pytest.mark.parametrize("page", CHAPTERS)
def test_launch_buttons_open_a_committed_notebook_of_this_repository(page):
    html = (BUILD / f"{page}.html").read_text(encoding="utf-8")
    colab, binder = launch_links(html)
    assert len(set(colab)) == 1 and len(set(binder)) == 1, (page, colab, binder)
    files = committed()
    for repo, branch, path in (colab_target(colab[0]), binder_target(binder[0])):
        assert (repo, branch) == (REPO, BRANCH), (page, repo, branch)
        assert path == f"{page}.ipynb", (page, path)
        assert path in files, f"{path} is not committed (run `make sync` and commit it)"


def test_binders_environment_is_committed():
    files = committed()
    assert {"binder/requirements.txt", "binder/postBuild"} <= files


@pytest.mark.parametrize("page", CHAPTERS)
def test_a_chinese_pages_buttons_open_its_chinese_notebook(page):
    """On the Chinese book (``_build/html/zh``), Colab, Binder and the ``.ipynb`` download give
    ``notebooks/zh/<page>.ipynb`` (scripts/zh_notebooks.py), committed."""
    built = BUILD / "zh" / f"{page}.html"
    if not built.exists():
        pytest.fail("the Chinese book is not built: run `make book` first")
    colab, binder = launch_links(built.read_text(encoding="utf-8"))
    assert len(set(colab)) == 1 and len(set(binder)) == 1, (page, colab, binder)
    chinese = f"notebooks/zh/{page.removeprefix('notebooks/')}.ipynb"
    for repo, branch, path in (colab_target(colab[0]), binder_target(binder[0])):
        assert (repo, branch, path) == (REPO, BRANCH, chinese), page
    assert chinese in committed(), f"{chinese} is not committed (run `make sync` and commit it)"
    download = BUILD / "zh" / "_sources" / f"{page}.ipynb"
    assert download.read_bytes() == (ROOT / chinese).read_bytes(), f"{download} is the English notebook"
