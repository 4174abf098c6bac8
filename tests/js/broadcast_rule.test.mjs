// Checks tensorlens/widgets/static/broadcast_rule.js against torch: every expected value comes from
// tests/js/fixtures/broadcast.json, written by scripts/make_broadcast_fixtures.py with torch.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";

import {
  broadcastShapes,
  broadcastStrides,
  conflictMessage,
  explainBroadcast,
  formatShape,
  parseShape,
  RULE_WORDS,
} from "../../tensorlens/widgets/static/broadcast_rule.js";
import { contiguousStrides } from "../../tensorlens/widgets/static/view_math.js";

const fixtures = JSON.parse(
  readFileSync(new URL("./fixtures/broadcast.json", import.meta.url), "utf8"),
);
const label = (c) => c.shapes.map(formatShape).join(" , ");

test("fixtures cover successes, conflicts, 0-d and zero-size shapes", () => {
  const cases = fixtures.cases;
  assert.ok(cases.length >= 300);
  assert.ok(cases.filter((c) => c.ok).length >= 100);
  assert.ok(cases.filter((c) => !c.ok).length >= 30);
  assert.ok(cases.some((c) => c.shapes.some((s) => s.length === 0)));
  assert.ok(cases.some((c) => c.shapes.some((s) => s.includes(0))));
  assert.ok(cases.some((c) => c.shapes.length >= 3 && !c.ok));
});

test("result shape matches torch.broadcast_shapes", () => {
  for (const c of fixtures.cases.filter((c) => c.ok)) {
    const out = broadcastShapes(c.shapes);
    assert.equal(out.ok, true, label(c));
    assert.deepEqual(out.result, c.result, label(c));
  }
});

test("a conflict names the same dim, operand and sizes as torch", () => {
  for (const c of fixtures.cases.filter((c) => !c.ok)) {
    const out = broadcastShapes(c.shapes);
    assert.equal(out.ok, false, label(c));
    const { dim, operand, size, other } = out.conflict;
    assert.deepEqual({ dim, operand, size, other }, c.conflict, label(c));
    // The operand blamed for the other size really has it at that dim.
    const blamed = c.shapes[out.conflict.otherOperand];
    assert.ok(blamed.length >= -dim, label(c));
    assert.equal(blamed[blamed.length + dim], other, label(c));
    assert.ok(out.conflict.otherOperand < operand, label(c));
  }
});

test("broadcast strides match the views torch.broadcast_tensors returns", () => {
  for (const c of fixtures.cases.filter((c) => c.ok)) {
    c.shapes.forEach((shape, i) => {
      const got = broadcastStrides(shape, c.input_strides[i], c.result);
      assert.deepEqual(got, c.strides[i], `${label(c)} operand ${i}`);
    });
  }
});

test("explainBroadcast marks kept, stretched and prepended dims", () => {
  for (const c of fixtures.cases) {
    const operands = c.shapes.map((shape, i) => ({ shape, stride: c.input_strides[i] }));
    const plan = explainBroadcast(operands);
    assert.equal(plan.ok, c.ok, label(c));
    const rank = Math.max(0, ...c.shapes.map((s) => s.length));
    assert.equal(plan.rank, rank);
    plan.rows.forEach((row, i) => {
      const shape = c.shapes[i];
      assert.equal(row.padded.length, rank);
      assert.deepEqual(row.padded.filter((s) => s !== null), shape);
      if (!c.ok) {
        assert.equal(row.marks, null);
        return;
      }
      assert.deepEqual(row.strides, c.strides[i]);
      row.marks.forEach((mark, j) => {
        const size = row.padded[j];
        if (j < rank - shape.length) assert.equal(mark, "prepended");
        else if (size === c.result[j]) assert.equal(mark, "kept");
        else {
          assert.equal(mark, "stretched");
          assert.equal(size, 1, "only size 1 stretches");
          assert.equal(c.strides[i][j], 0, "a stretched dim has stride 0 in torch");
        }
      });
    });
    if (c.ok) assert.deepEqual(plan.result, c.result);
    else assert.equal(plan.result, null);
  }
});

test("the [3,1] + [1,5] example", () => {
  const plan = explainBroadcast([{ shape: [3, 1] }, { shape: [1, 5] }]);
  assert.deepEqual(plan.result, [3, 5]);
  assert.deepEqual(plan.rows[0].marks, ["kept", "stretched"]);
  assert.deepEqual(plan.rows[1].marks, ["stretched", "kept"]);
  assert.deepEqual(plan.rows[0].strides, [1, 0]);
  assert.deepEqual(plan.rows[1].strides, [0, 1]);
});

test("without strides, operands are taken as contiguous", () => {
  assert.deepEqual(contiguousStrides([2, 3, 4]), [12, 4, 1]);
  assert.deepEqual(contiguousStrides([2, 0, 4]), [4, 4, 1]);
  assert.deepEqual(contiguousStrides([]), []);
  const plan = explainBroadcast([{ shape: [4] }, { shape: [2, 3, 1], stride: null }]);
  assert.deepEqual(plan.rows[0].strides, [0, 0, 1]);
  assert.deepEqual(plan.rows[1].strides, [3, 1, 0]);
});

test("conflict message names the dim and both sizes", () => {
  const plan = explainBroadcast([{ shape: [3, 4] }, { shape: [4, 5] }]);
  const text = conflictMessage(plan.conflict, ["a", "b"], plan.rank);
  assert.match(text, /at dim -1 \(dim 1 of the result\)/);
  assert.match(text, /b has size 5 but a has size 4/);
});

test("parseShape reads what a reader types, and rejects the rest", () => {
  for (const { text, shape } of fixtures.parse) {
    const out = parseShape(text);
    if (shape === null) {
      assert.equal(out.ok, false, JSON.stringify(text));
      assert.equal(typeof out.error, "string");
      assert.ok(out.error.length > 0);
    } else {
      assert.equal(out.ok, true, JSON.stringify(text));
      assert.deepEqual(out.shape, shape, JSON.stringify(text));
    }
  }
  assert.equal(parseShape(undefined).ok, false);
  assert.match(parseShape("-1").error, /negative/);
});

test("formatShape", () => {
  assert.equal(formatShape([3, 5]), "[3, 5]");
  assert.equal(formatShape([]), "[]");
});

test("the messages are English by default and Chinese with RULE_WORDS.zh", () => {
  const plan = explainBroadcast([{ shape: [3, 4] }, { shape: [4, 5] }]);
  assert.equal(conflictMessage(plan.conflict, ["a", "b"], plan.rank, RULE_WORDS.en),
    conflictMessage(plan.conflict, ["a", "b"], plan.rank));
  assert.equal(conflictMessage(plan.conflict, ["a", "b"], plan.rank, RULE_WORDS.zh),
    "无法广播：在维度 -1（结果的维度 1）上，b 的大小为 5，而 a 的大小为 4；各大小必须相等，或者其中一个为 1");
  assert.match(conflictMessage(plan.conflict, [], plan.rank, RULE_WORDS.zh), /操作数 1 的大小为 5，而 操作数 0/);
  assert.equal(parseShape("3, -1", RULE_WORDS.zh).error, '"-1" 不是合法的大小（大小不能为负数）');
  assert.equal(parseShape("3, -1").error, '"-1" is not a size (sizes cannot be negative)');
  assert.equal(parseShape(" ", RULE_WORDS.zh).error, "为空：0 维张量请写 ()");
  // Every text the grammar rejects gets a Chinese message with the Chinese words, and the same
  // verdict in both languages.
  for (const { text, shape } of fixtures.parse) {
    const [en, zh] = [parseShape(text), parseShape(text, RULE_WORDS.zh)];
    assert.equal(zh.ok, en.ok, JSON.stringify(text));
    if (shape === null) {
      assert.match(zh.error, /[\u4e00-\u9fff]/, JSON.stringify(text));
      assert.notEqual(zh.error, en.error);
    } else assert.deepEqual(zh.shape, en.shape);
  }
  assert.equal(parseShape(undefined, RULE_WORDS.zh).error, "形状必须是文本");
});
