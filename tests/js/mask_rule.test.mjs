// Checks tensorlens/widgets/static/mask_rule.js against torch: every expected mask comes from
// tests/js/fixtures/masks.json, written by scripts/make_mask_fixtures.py with torch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import { RULE_WORDS, buildMasks, formatShape, parseLengths, sizeError, sizeProblem } from "../../tensorlens/widgets/static/mask_rule.js";
import { WORDS, analyse } from "../../tensorlens/widgets/static/mask_explorer.js";

const fixtures = JSON.parse(readFileSync(new URL("./fixtures/masks.json", import.meta.url), "utf8"));

test("fixtures cover both conventions, causal or not, and empty sequences", () => {
  const cases = fixtures.cases;
  assert.ok(cases.length >= 100);
  for (const convention of ["sdpa", "mha"]) {
    for (const causal of [true, false]) assert.ok(cases.some((c) => c.convention === convention && c.causal === causal));
  }
  assert.ok(cases.some((c) => c.fully_masked.length > 0));
  assert.ok(cases.some((c) => c.lengths.includes(0) && c.causal));
});

test("buildMasks draws the masks torch builds", () => {
  for (const c of fixtures.cases) {
    const label = `${c.lengths} L=${c.L} ${c.causal} ${c.convention}`;
    const m = buildMasks(c.lengths, c.L, c.causal, c.convention);
    assert.deepEqual(m.padding, c.padding, label);
    assert.deepEqual(m.causal, c.causal_mask, label);
    assert.deepEqual(m.combined, c.combined, label);
    assert.deepEqual(m.shapes.combined, c.shape, label);
    assert.deepEqual(m.allowed, c.allowed, label);
    assert.deepEqual(m.fullyMasked, c.fully_masked, label);
    assert.equal(m.code, c.code, label);
  }
});

test("parseLengths reads what a reader types, and rejects the rest", () => {
  for (const { text, lengths } of fixtures.parse) {
    const out = parseLengths(text);
    if (lengths === null) {
      assert.equal(out.ok, false, JSON.stringify(text));
      assert.ok(out.error.length > 0);
    } else {
      assert.deepEqual(out, { ok: true, lengths }, JSON.stringify(text));
    }
  }
  assert.match(parseLengths("4, -1").error, /negative/);
});

test("sizes out of range say which", () => {
  assert.equal(sizeError([4, 2], 4), "");
  assert.equal(sizeError([5, 2], 4), "lengths[0] is 5, longer than L = 4");
  assert.equal(sizeError([1], 13), "L must be between 1 and 12, got 13");
  assert.equal(sizeError([1], 0), "L must be between 1 and 12, got 0");
  assert.equal(sizeError([1, 1, 1, 1, 1, 1, 1], 2), "lengths: give 1 to 6 sequences, got 7");
  assert.equal(formatShape([3, 1, 4, 4]), "(3, 1, 4, 4)");
  assert.equal(formatShape([3]), "(3,)");
});

test("the messages come in Chinese for the Chinese pages, English by default", () => {
  const zh = RULE_WORDS.zh;
  assert.equal(sizeError([5, 2], 4, zh), "lengths[0] 为 5，超过了 L = 4");
  assert.equal(sizeError([1], 13, zh), "L 必须在 1 到 12 之间，实际为 13");
  assert.equal(sizeError([1, 1, 1, 1, 1, 1, 1], 2, zh), "lengths 有误：应给出 1 到 6 个序列，实际为 7 个");
  assert.equal(sizeError([4, 2], 4, zh), "");
  assert.equal(parseLengths("4, -1", zh).error, "“-1” 不是长度（长度不能为负）");
  assert.equal(parseLengths("4,,2", zh).error, "两个逗号之间没有长度");
  assert.equal(parseLengths("  ", zh).error, "没有长度：请为每个序列输入一个长度，例如 4, 2, 3");
  assert.equal(parseLengths("4, x").error, '"x" is not a length');
  assert.deepEqual(parseLengths("4, 2", zh), { ok: true, lengths: [4, 2] });
});

test("which input is wrong does not depend on the language of the message", () => {
  assert.equal(sizeProblem([4, 2], 4), "");
  assert.equal(sizeProblem([5, 2], 4), "lengths");
  assert.equal(sizeProblem([1], 13), "len");
  assert.equal(sizeProblem([1, 1, 1, 1, 1, 1, 1], 13), "lengths");
  const state = (lengths, seqLen) => ({ lengths, seqLen, causal: true, convention: "sdpa" });
  for (const words of [WORDS.en, WORDS.zh]) {
    assert.equal(analyse(state("4, 2", "13"), words).field, "len");
    assert.equal(analyse(state("4, 5", "4"), words).field, "lengths");
    assert.equal(analyse(state("4, x", "4"), words).field, "lengths");
    assert.equal(analyse(state("4, 2", "x"), words).field, "len");
    assert.equal(analyse(state("4, 2", "4"), words).ok, true);
  }
  assert.equal(analyse(state("4, 2", "13")).message, "L must be between 1 and 12, got 13");
  assert.equal(analyse(state("4, x", "4"), WORDS.zh).message, "lengths 有误：“x” 不是长度");
  assert.equal(analyse(state("4, 2", "x"), WORDS.zh).message, "L 有误：“x” 不是整数（L 是填充后的长度）");
  assert.equal(analyse(state("4, x", "4")).message, 'lengths: "x" is not a length');
});
