// Every widget's own words (WORDS, by ./i18n.js's page language): each widget module that a
// notebook loads exports a table with the same keys in English and Chinese, Chinese text in the
// Chinese one, and functions that take the same arguments. Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";

import { pageLanguage, widgetLanguage } from "../../tensorlens/widgets/static/i18n.js";

const STATIC = new URL("../../tensorlens/widgets/static/", import.meta.url);
// the modules the Python widgets load as their _esm: the quiz and every explorer
const WIDGETS = readdirSync(STATIC).filter((f) => f === "quiz.js" || f.endsWith("_explorer.js")).sort();
const CJK = /[\u4e00-\u9fff]/;

function compare(en, zh, path, problems) {
  const keys = (o) => Object.keys(o).sort();
  if (JSON.stringify(keys(en)) !== JSON.stringify(keys(zh))) {
    problems.push(`${path}: keys differ: ${keys(en).filter((k) => !(k in zh))} | ${keys(zh).filter((k) => !(k in en))}`);
    return;
  }
  for (const key of keys(en)) {
    if (key === "titles") continue; // Chinese names for titles a notebook gives (English has none)
    const [a, b] = [en[key], zh[key]];
    if (typeof a !== typeof b) problems.push(`${path}.${key}: ${typeof a} against ${typeof b}`);
    else if (typeof a === "function") {
      if (a.length !== b.length) problems.push(`${path}.${key}: ${a.length} arguments against ${b.length}`);
      const sample = b(...Array.from({ length: b.length }, (_, i) => i + 2));
      if (typeof sample === "string" && !CJK.test(sample) && sample !== a(...Array.from({ length: a.length }, (_, i) => i + 2)))
        problems.push(`${path}.${key}: no Chinese in ${JSON.stringify(sample)}`);
    } else if (typeof a === "string") {
      if (!CJK.test(b) && b !== a) problems.push(`${path}.${key}: no Chinese in ${JSON.stringify(b)}`);
    } else if (a && typeof a === "object") compare(a, b, `${path}.${key}`, problems);
  }
}

test("the widget modules are found", () => {
  assert.ok(WIDGETS.includes("quiz.js") && WIDGETS.length >= 5, WIDGETS.join(", "));
});

for (const file of WIDGETS) {
  test(`${file} has its words in English and Chinese`, async () => {
    const module = await import(new URL(file, STATIC));
    assert.ok(module.WORDS && module.WORDS.en && module.WORDS.zh, `${file} exports no WORDS = {en, zh}`);
    const problems = [];
    compare(module.WORDS.en, module.WORDS.zh, file.replace(".js", ""), problems);
    assert.deepEqual(problems, []);
  });
}

test("the page's language comes from the nearest lang attribute", () => {
  const el = (lang) => ({ closest: () => (lang === null ? null : { getAttribute: () => lang }) });
  assert.equal(pageLanguage(el("zh-CN")), "zh");
  assert.equal(pageLanguage(el("zh")), "zh");
  assert.equal(pageLanguage(el("en")), "en");
  assert.equal(pageLanguage(el("")), "en");
  assert.equal(pageLanguage(el(null)), "en");   // no lang around it, and no document (node)
  assert.equal(pageLanguage(undefined), "en");
});

test("a widget whose kernel speaks Chinese says its own words in Chinese on any page", () => {
  const model = (language) => ({ get: (name) => (name === "language" ? language : undefined) });
  const page = (lang) => ({ closest: () => ({ getAttribute: () => lang }) });
  assert.equal(widgetLanguage(model("zh"), page("en")), "zh");   // a Chinese kernel in Jupyter
  assert.equal(widgetLanguage(model(""), page("en")), "en");     // an English kernel
  assert.equal(widgetLanguage(model(""), page("zh-CN")), "zh");  // the Chinese book's page
  assert.equal(widgetLanguage(model(undefined), page("zh-CN")), "zh");  // stored state, no trait
  assert.equal(widgetLanguage(undefined, page("en")), "en");
});
