// The language of the page a widget is drawn on, for the widget's own words: the Chinese book's
// pages declare lang="zh-CN"; anywhere else (JupyterLab, Colab, the English book) it is English.
// A widget keeps a table of its words per language, WORDS = { en: {...}, zh: {...} }, with the
// same keys in both (tests/js/i18n.test.mjs checks every widget's table), and draws with
// WORDS[pageLanguage(el)]. What torch itself prints (the error texts a widget mirrors) and the
// names of operations and arguments stay as written: the pages of both editions quote them.

/** "zh" when the nearest `lang` attribute around `el` (or the document's) is Chinese, else "en". */
export function pageLanguage(el) {
  const around = el && typeof el.closest === "function" ? el.closest("[lang]") : null;
  const lang = around ? around.getAttribute("lang")
    : (typeof document !== "undefined" && document.documentElement ? document.documentElement.lang : "");
  return String(lang || "").toLowerCase().startsWith("zh") ? "zh" : "en";
}

/**
 * A widget's language: "zh" when its model says the kernel speaks Chinese (the `language` trait
 * that tensorlens.Quiz sets in a Chinese kernel: Jupyter and Colab pages are English), else the
 * page's. An empty or missing trait (an English kernel, a page's stored state) follows the page.
 */
export function widgetLanguage(model, el) {
  const chosen = model && typeof model.get === "function" ? model.get("language") : "";
  return chosen === "zh" ? "zh" : pageLanguage(el);
}
