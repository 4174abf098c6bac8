// Checks tensorlens/widgets/static/float_bits.js against torch: every expected value comes from
// tests/js/fixtures/float_bits.json, written by scripts/make_float_bits_fixtures.py with torch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import {
  FORMATS, PARSE_WORDS, bitString, decode, describe, encode, explain, formatNumber, parseNumber, width,
} from "../../tensorlens/widgets/static/float_bits.js";

const fixtures = JSON.parse(readFileSync(new URL("./fixtures/float_bits.json", import.meta.url), "utf8"));
// Python's repr of a float, read back exactly (nan, inf, -0.0, 1e-08 ...).
const num = (text) => {
  const out = parseNumber(text);
  assert.equal(out.ok, true, text);
  return out.value;
};
const same = (a, b) => (Number.isNaN(a) ? Number.isNaN(b) : Object.is(a, b));

test("fixtures cover every format, boundaries and specials", () => {
  for (const name of Object.keys(FORMATS)) {
    const enc = fixtures.encode.filter((c) => c.format === name);
    assert.ok(enc.length >= 100, name);
    assert.ok(enc.some((c) => c.x === "-0.0") && enc.some((c) => c.x === "nan") && enc.some((c) => c.x === "inf"));
    const dec = fixtures.decode.filter((c) => c.format === name);
    for (const kind of ["zero", "subnormal", "normal", "nan"]) assert.ok(dec.some((c) => c.kind === kind), `${name} ${kind}`);
  }
  assert.equal(fixtures.decode.filter((c) => c.format === "float8_e4m3fn").length, 256);
  assert.ok(!fixtures.decode.some((c) => c.format === "float8_e4m3fn" && c.kind === "inf"), "e4m3fn has no inf");
});

test("encode stores the bits torch stores", () => {
  for (const c of fixtures.encode) {
    const f = FORMATS[c.format];
    assert.equal(encode(num(c.x), f), c.bits, `${c.format} ${c.x}`);
  }
});

test("decode reads the value, kind and spacing torch reads", () => {
  for (const c of fixtures.decode) {
    const d = decode(c.bits, FORMATS[c.format]);
    const label = `${c.format} ${c.bits}`;
    assert.ok(same(d.value, num(c.value)), `${label}: ${d.value} vs ${c.value}`);
    assert.equal(d.kind, c.kind, label);
    if (c.spacing === null) assert.equal(d.spacing, null, label);
    else assert.equal(d.spacing, num(c.spacing), label);
  }
});

test("parseNumber reads what a reader types, and rejects the rest", () => {
  for (const { text, value } of fixtures.parse) {
    const out = parseNumber(text);
    if (value === null) {
      assert.equal(out.ok, false, JSON.stringify(text));
      assert.ok(out.error.length > 0);
    } else {
      assert.equal(out.ok, true, JSON.stringify(text));
      assert.ok(same(out.value, num(value)), JSON.stringify(text));
    }
  }
});

test("what the explorer writes back reads as the same value", () => {
  for (const c of fixtures.decode) {
    const v = decode(c.bits, FORMATS[c.format]).value;
    assert.ok(same(num(formatNumber(v)), v), `${v}`);
  }
});

test("the examples of the book's pages", () => {
  const f16 = FORMATS.float16;
  assert.equal(bitString(encode(-6.25, f16), f16), "1 10001 1001000000");
  const e = explain(0.1, f16);
  assert.equal(e.value, 0.0999755859375);
  assert.equal(e.error, 0.0999755859375 - 0.1);
  assert.equal(explain(65520, f16).overflow, true);
  assert.equal(explain(65519, f16).value, 65504);
  const e4 = FORMATS.float8_e4m3fn;
  assert.deepEqual([explain(70000, e4).value, explain(70000, e4).overflow], [448, true]);
  assert.equal(explain(-Infinity, e4).value, -448);
  assert.equal(width(FORMATS.float32), 32);
  assert.equal(describe(2 ** -24), "2**-24 = 5.960464477539063e-8");
  assert.equal(describe(0.5), "0.5");
  // the lowest exponent bit of float16's 1.0 (0 01111 0000000000) is worth a factor of 2
  assert.equal(decode(encode(1, f16) - 2 ** 10, f16).value, 0.5);
});

test("parseNumber's messages are English by default and Chinese with the Chinese words", () => {
  assert.deepEqual(parseNumber(""), { ok: false, error: "empty: type a number such as 0.1, -6.25, 1e-8, 2**-24 or inf" });
  assert.equal(parseNumber(" abc ").error, '"abc" is not a number: try 0.1, -6.25, 1e-8, 2**-24 or inf');
  assert.equal(parseNumber(3).error, "a number must be text");
  assert.equal(parseNumber("", PARSE_WORDS.zh).error, "为空：请输入一个数，例如 0.1、-6.25、1e-8、2**-24 或 inf");
  assert.equal(parseNumber(" abc ", PARSE_WORDS.zh).error, "“abc”不是一个数：试试 0.1、-6.25、1e-8、2**-24 或 inf");
  assert.equal(parseNumber(3, PARSE_WORDS.zh).error, "数值必须是文本");
  assert.deepEqual(parseNumber("2**-24", PARSE_WORDS.zh), { ok: true, value: 2 ** -24 });
});

test("the explorer's words carry parseNumber's, and keep format names and torch's spelling", async () => {
  const { WORDS } = await import("../../tensorlens/widgets/static/float_bits_explorer.js");
  assert.equal(WORDS.en.parse, PARSE_WORDS.en);
  assert.equal(WORDS.zh.parse, PARSE_WORDS.zh);
  // what the live region says on an English page is the kind's name, as decode() gives it
  assert.deepEqual(Object.entries(WORDS.en.kindsSaid).filter(([k, v]) => k !== v), []);
  assert.equal(WORDS.zh.overflows("65520", "float16", 65504),
    "溢出：65520 超出了 float16 的最大有限值 65504（超出半个间隔或更多），所以存储为 inf。");
  assert.equal(WORDS.zh.layout(5, 15, 10, true), "1 位符号位 + 5 位指数（偏置 15）+ 10 位尾数");
  assert.equal(WORDS.zh.layout(4, 7, 3, false), "1 位符号位 + 4 位指数（偏置 7）+ 3 位尾数；没有 inf");
  // the term table's words: 步幅 is stride, never 步长 (the explorer says 间隔 for spacing)
  const source = readFileSync(new URL("../../tensorlens/widgets/static/float_bits_explorer.js", import.meta.url), "utf8");
  assert.ok(!source.includes("步长") && source.includes("次正规数") && source.includes("尾数"));
});
