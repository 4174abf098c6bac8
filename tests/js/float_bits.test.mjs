// Checks tensorlens/widgets/static/float_bits.js against torch: every expected value comes from
// tests/js/fixtures/float_bits.json, written by scripts/make_float_bits_fixtures.py with torch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import {
  FORMATS, bitString, decode, describe, encode, explain, formatNumber, parseNumber, width,
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
