"""The book in two languages: a link on every page to the same page in the other language, and
the footnote references of translated paragraphs, the labels of the code toggles, the table
of contents' captions and the stored check reports (rendered in Chinese by tensorlens); on the
Chinese pages, launch and download buttons that open the Chinese
notebooks (``notebooks/zh``).

The English book is built at ``_build/html``, the Chinese one (``language: zh_CN``, from the
catalogs in ``locales/``) at ``_build/html/zh`` (``scripts/i18n.py build``), so a page's
counterpart is found by its name alone. The Chinese build also gets the theme strings that have
no catalog: the search field's placeholder and the toggle buttons' hints.

Sphinx parses each translated message on its own, where MyST does not know the page's footnotes,
so a ``[^record]`` in a translation stays text (and Sphinx warns that the paragraph lost its
reference). ``TranslatedFootnotes`` turns such text back into the reference, once the messages
are in; scripts/i18n.py lint checks that every translation keeps its footnote references.
"""

import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform

TEMPLATES = Path(__file__).with_name("templates")
ZH = "zh_CN"
ZH_FOLDER = "zh"
#: theme strings without a catalog, as the Chinese build writes them
ZH_THEME_STRINGS = {"search_bar_text": "搜索本书……"}
ZH_CONFIG_STRINGS = {"togglebutton_hint": "点击显示", "togglebutton_hint_hide": "点击隐藏",
                     "nb_code_prompt_show": "显示{type}",
                     "nb_code_prompt_hide": "隐藏{type}"}


class _LatinTerms(set):
    """Sphinx 7.4's Chinese search keeps every Latin word of the book in a list that each page
    extends and each word's stemming searches (minutes on this book); a set answers the same."""

    def extend(self, terms):
        self.update(terms)


#: the labels of the book's code toggles (cells' ``code_prompt_show`` and ``code_prompt_hide``
#: metadata), as the Chinese book writes them; tests/test_i18n.py finds every label in this table
ZH_PROMPTS = {
    "Show the check": "显示检查代码", "Hide the check": "隐藏检查代码",
    "Show the code": "显示代码", "Hide the code": "隐藏代码",
    "Solution": "参考答案", "Hide the solution": "隐藏参考答案",
    "Show the NumPy code": "显示 NumPy 代码", "Hide the NumPy code": "隐藏 NumPy 代码",
    "Show the messages": "显示消息", "Hide the messages": "隐藏消息",
}


#: what a default toggle label's ``{type}`` stands for, by the cell's hide mode (MyST-NB fills in
#: source, output(s) or content)
ZH_HIDDEN = {"input": "源代码", "output": "输出", "all": "内容"}


class TranslatedPrompts(SphinxTransform):
    """The Chinese labels of the code toggles: those that cells name in their metadata, and the
    default one (``nb_code_prompt_show``), whose ``{type}`` MyST-NB would fill in English."""

    default_priority = 25

    def apply(self, **kwargs):
        if self.config.language != ZH:
            return
        for cell in self.document.findall(nodes.container):
            for key in ("prompt_show", "prompt_hide"):
                if cell.get(key) in ZH_PROMPTS:
                    cell[key] = ZH_PROMPTS[cell[key]]
                if "{type}" in cell.get(key, "") and cell.get("hide_mode") in ZH_HIDDEN:
                    cell[key] = cell[key].replace("{type}", ZH_HIDDEN[cell["hide_mode"]])


class TranslatedCaptions(SphinxTransform):
    """The captions of the table of contents (``_toc.yml``: "Chapters", "Reference"), from the
    root page's catalog: sphinx-external-toc inserts its toctrees after the messages went in."""

    default_priority = 110  # after sphinx_external_toc's InsertToctrees (100)

    def apply(self, **kwargs):
        if self.config.language != ZH:
            return
        from sphinx import locale
        from sphinx.util.i18n import docname_to_domain

        catalog, _ = locale.init([Path(self.env.srcdir, d) for d in self.config.locale_dirs],
                                 self.config.language,
                                 docname_to_domain(self.env.docname, self.config.gettext_compact))
        for toctree in self.document.findall(addnodes.toctree):
            if toctree.get("caption"):
                toctree["caption"] = toctree["rawcaption"] = catalog.gettext(toctree["caption"])


def _config_inited(app, config):
    config.templates_path.append(str(TEMPLATES))
    options = config.html_theme_options
    options["article_header_end"] = ["language-switch.html",
                                     *options.get("article_header_end", ["article-header-buttons.html"])]
    if config.language == ZH:
        options.update(ZH_THEME_STRINGS)
        # the footnotes' warning (above) is answered by TranslatedFootnotes; the roles and links a
        # translation must keep are checked message by message (scripts/i18n.py lint)
        config.suppress_warnings = [*config.suppress_warnings, "i18n.inconsistent_references"]
        from sphinx.search import zh

        zh.SearchChinese.latin_terms = _LatinTerms()
        for name, value in ZH_CONFIG_STRINGS.items():
            if name in config:
                config[name] = value


class TranslatedFootnotes(SphinxTransform):
    """``[^label]`` text in a translated page, where the page defines that footnote, becomes the
    footnote reference MyST would have made (docutils then numbers and links it)."""

    default_priority = 25  # after sphinx.transforms.i18n.Locale (20), before docutils' Footnotes
    REFERENCE = re.compile(r"\[\^([\w-]+)\]")

    def apply(self, **kwargs):
        if self.config.language != ZH:
            return
        labels = {name for footnote in self.document.findall(nodes.footnote)
                  for name in footnote["names"]}
        for text in list(self.document.findall(nodes.Text)):
            parent = text.parent
            if isinstance(parent, (nodes.literal, nodes.literal_block, nodes.FixedTextElement)) \
                    or not self.REFERENCE.search(text):
                continue
            pieces, last = [], 0
            for match in self.REFERENCE.finditer(text):
                if match.group(1) not in labels:
                    continue
                pieces.append(nodes.Text(text[last:match.start()]))
                reference = nodes.footnote_reference(match.group(0), auto=1, refname=match.group(1))
                self.document.note_autofootnote_ref(reference)
                self.document.note_footnote_ref(reference)
                pieces.append(reference)
                last = match.end()
            if pieces:
                pieces.append(nodes.Text(text[last:]))
                parent.replace(text, [p for p in pieces if not isinstance(p, nodes.Text) or p])


def _zh_reports(notebook: Path) -> dict:
    """The check reports stored in the English notebook ``notebook``: English HTML -> Chinese
    HTML, rendered by tensorlens (``translate_bundle``: strict, as scripts/zh_notebooks.py
    writes the Chinese notebooks). A report whose text has no translation maps to None."""
    import json

    from tensorlens.exercises import _render
    from tensorlens.exercises._messages import Untranslated

    table = {}
    for cell in json.loads(notebook.read_text(encoding="utf-8"))["cells"]:
        for output in cell.get("outputs", []):
            data = output.get("data", {})
            html = "".join(data.get("text/html", ""))
            if 'class="tl-check ' in html:
                try:
                    table[html.strip()] = _render.translate_bundle(data, ZH)["text/html"]
                except (Untranslated, ValueError):
                    table[html.strip()] = None
    return table


class TranslatedCheckReports(SphinxTransform):
    """On a Chinese page, each ``tl.check`` report the notebook stored (its HTML, the
    ``tl-check`` box) is the English one rendered in Chinese by tensorlens. A report without a
    translation is a warning, which the -W build turns into an error."""

    default_priority = 25

    def apply(self, **kwargs):
        if self.config.language != ZH:
            return
        raws = [n for n in self.document.findall(nodes.raw)
                if 'class="tl-check ' in n.astext() and n.get("format") == "html"]
        notebook = Path(self.env.srcdir, f"{self.env.docname}.ipynb")
        if not raws or not notebook.exists():
            return
        from sphinx.util import logging

        table = _zh_reports(notebook)
        for node in raws:
            chinese = table.get(node.astext().strip())
            if chinese is None:
                logging.getLogger(__name__).warning(
                    "%s: a check report has no Chinese (tensorlens/exercises/zh_CN.json): %s",
                    self.env.docname, node.astext()[:80], location=node)
                continue
            node.replace(node[0], nodes.Text(chinese))


def switch_link(pagename: str, language: str) -> dict:
    """Where the same page is in the other language, relative to ``pagename``'s own folder."""
    up = "../" * pagename.count("/")
    if language == ZH:
        return {"href": f"{up}../{pagename}.html", "label": "English", "lang": "en",
                "title": "Read this page in English"}
    return {"href": f"{up}{ZH_FOLDER}/{pagename}.html", "label": "中文", "lang": "zh-CN",
            "title": "阅读本页的中文版"}


def _page_context(app, pagename, templatename, context, doctree):
    context["language_switch"] = switch_link(pagename, app.config.language or "en")


#: the Chinese notebooks (scripts/zh_notebooks.py), beside the English ones
ZH_NOTEBOOKS = "notebooks/zh"


def _zh_quizzes(app, pagename, templatename, context, doctree):
    """On a Chinese page, the quizzes draw their questions from the page's quiz catalog
    (scripts/quiz_messages.py): the widget state MyST-NB puts in the page is translated before
    it is written (myst-nb adds it at priority 500). A message without a translation is a
    warning, which the -W build turns into an error."""
    if app.config.language != ZH:
        return
    js_files = getattr(app.env, "nb_metadata", {}).get(pagename, {}).get("js_files", {})
    if "ipywidgets_state" not in js_files:
        return
    import json
    import sys

    from myst_nb.core.render import sanitize_script_content
    from sphinx.util import logging

    sys.path.insert(0, str(Path(app.srcdir, "scripts")))
    import quiz_messages

    uri, kwargs = js_files["ipywidgets_state"]
    state = {quiz_messages.WIDGET_STATE: json.loads(kwargs["body"])}
    translated, missing = quiz_messages.translate_state(
        state, quiz_messages.translations(Path(pagename).name))
    for text in missing:
        logging.getLogger(__name__).warning(
            "%s: a quiz message has no Chinese (make i18n, then scripts/i18n.py todo/fill "
            "locales/zh_CN/quizzes/%s.po): %s", pagename, Path(pagename).name, text[:60])
    body = sanitize_script_content(json.dumps(translated[quiz_messages.WIDGET_STATE]))
    app.add_js_file(uri, **{**kwargs, "body": body})
    js_files.pop("ipywidgets_state")


def _zh_launch_buttons(app, pagename, templatename, context, doctree):
    """On a Chinese page, the Colab and Binder buttons open the page's Chinese notebook."""
    if app.config.language != ZH or not Path(app.srcdir, ZH_NOTEBOOKS, f"{Path(pagename).name}.ipynb").exists():
        return
    english = f"/{pagename}.ipynb"
    chinese = f"/{ZH_NOTEBOOKS}/{Path(pagename).name}.ipynb"

    def retarget(button):
        if isinstance(button, dict):
            if str(button.get("url", "")).startswith("https://"):  # not the download button
                button["url"] = button["url"].replace(english, chinese)
            for value in button.values():
                retarget(value)
        elif isinstance(button, list):
            for item in button:
                retarget(item)

    retarget(context.get("header_buttons", []))


def _zh_downloads(app, exception):
    """The Chinese book's ``.ipynb`` download button serves the Chinese notebook."""
    if exception or app.config.language != ZH or app.builder.format != "html":
        return
    sources = Path(app.outdir, "_sources", "notebooks")
    for notebook in Path(app.srcdir, ZH_NOTEBOOKS).glob("*.ipynb"):
        if (sources / notebook.name).exists():
            (sources / notebook.name).write_bytes(notebook.read_bytes())


def setup(app):
    app.connect("config-inited", _config_inited)
    app.connect("html-page-context", _page_context)
    app.connect("html-page-context", _zh_quizzes, priority=400)  # before myst-nb's page scripts
    app.connect("html-page-context", _zh_launch_buttons, priority=600)  # after the theme's (501)
    app.connect("build-finished", _zh_downloads)
    app.add_transform(TranslatedFootnotes)
    app.add_transform(TranslatedPrompts)
    app.add_transform(TranslatedCaptions)
    app.add_transform(TranslatedCheckReports)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
