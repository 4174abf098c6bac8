// The parts of the StrideExplorer that run without a DOM: which storage cells it draws
// (storageWindow), why it refuses to draw (capNotice, the same text as StrideExplorer.notice in
// Python), reader counts over a window, and how the op inputs become recorded args (readArgs).
// The drawing itself is checked in headless Chromium (tests/browser). Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";

import * as vm from "../../tensorlens/widgets/static/view_math.js";
import { OPS, WORDS, labelSize, readArgs } from "../../tensorlens/widgets/static/stride_explorer.js";

const CAP = 262144;
const spec = (op) => OPS.find((s) => s.op === op);

test("a tiny view of a big storage is drawn: only the span it reads", () => {
  // torch.arange(300_000)[:4], the audit's example
  const v = vm.makeView([4], [1], 0, 300000);
  assert.deepEqual(vm.storageWindow(v, CAP), { start: 0, stop: 4 });
  assert.equal(vm.capNotice(v, CAP), "");
  // x.view(1000, 1000)[2:4, 5:7]: first and last positions read, gaps in between
  const big = vm.makeView([1000, 1000]);
  const block = vm.slice(vm.slice(big, 0, 2, 4, 1), 1, 5, 7, 1);
  assert.deepEqual(vm.storageWindow(block, CAP), { start: 2005, stop: 3007 });
  assert.equal(vm.capNotice(block, CAP), "");
  // Reader counts over the window: position start + i has counts[i] readers.
  const indices = vm.storageIndices(block);
  const counts = vm.readersPerCell(block, indices, 2005, 3007);
  assert.equal(counts.length, 1002);
  assert.deepEqual([0, 1, 2, 1000, 1001].map((i) => counts[i]), [1, 1, 0, 1, 1]);
  assert.equal(counts.reduce((a, b) => a + b, 0), 4);
  // ... and the formula offset + sum(index * stride) still lands on the true position.
  assert.equal(vm.storageIndex(block, [1, 1]), 2005 + 1000 + 1);
  // An expanded view reads its cells several times: the window counts them.
  const row = vm.expand(vm.select(big, 0, 999), [3, 1000]);
  const w = vm.storageWindow(row, CAP);
  assert.deepEqual(w, { start: 999000, stop: 1000000 });
  assert.ok(vm.readersPerCell(row, vm.storageIndices(row), w.start, w.stop).every((c) => c === 3));
  // An empty view reads nothing; a small storage is drawn whole, skipped cells and all.
  assert.deepEqual(vm.storageWindow(vm.narrow(big, 0, 5, 0), CAP), { start: 5000, stop: 5000 });
  assert.deepEqual(vm.storageWindow(vm.makeView([3], [1], 2, 10), CAP), { start: 0, stop: 10 });
});

test("over the cap: the notice says why, and narrowing ends it", () => {
  // torch.zeros(600, 600): too many elements
  const v = vm.makeView([600, 600]);
  assert.equal(vm.capNotice(v, CAP),
    "This view has 360,000 elements, more than this explorer draws (max_elements=262,144). " +
    "Narrow, select or slice it to see it drawn.");
  assert.equal(vm.capNotice(vm.narrow(v, 0, 0, 2), CAP), "");
  // torch.zeros(1000, 1000)[:, 0]: few elements, but 999,001 cells apart end to end
  const column = vm.select(vm.makeView([1000, 1000]), 1, 0);
  assert.equal(vm.capNotice(column, CAP),
    "This view reads storage cells 0 to 999,000 of 1,000,000, a span of 999,001 cells, more " +
    "than this explorer draws (max_elements=262,144). Narrow, select or slice it to see it drawn.");
  assert.equal(vm.capNotice(vm.narrow(column, 0, 0, 100), CAP), "");
  assert.equal(vm.capNotice(column, 2000000), "");
  assert.equal(vm.fmtInt(1234567), "1,234,567");
  assert.equal(vm.fmtInt(12), "12");
});

test("readArgs range-checks a slice dim both ways and records it non-negative", () => {
  const v = vm.makeView([2, 3]);
  assert.throws(() => readArgs(spec("slice"), ["5", "", "", "2"], v), {
    message: "dim 5 is out of range for a view with 2 dims (expected a dim in [-2, 1])",
  });
  assert.throws(() => readArgs(spec("slice"), ["-3", "", "", "2"], v), {
    message: "dim -3 is out of range for a view with 2 dims (expected a dim in [-2, 1])",
  });
  assert.deepEqual(readArgs(spec("slice"), ["-1", "1", "", "2"], v), [1, 1, null, 2]);
  assert.deepEqual(readArgs(spec("slice"), ["1", "", "-1", "1"], v), [1, null, -1, 1]);
  assert.deepEqual(readArgs(spec("squeeze"), [""], v), []);
  assert.deepEqual(readArgs(spec("permute"), ["(1, 0)"], v), [[1, 0]]);
  assert.throws(() => readArgs(spec("narrow"), ["0", "x", "1"], v), { message: "start must be an int, not 'x'" });
});

test("on a Chinese page the notice, the words and the errors are Chinese", () => {
  const zh = WORDS.zh;
  assert.equal(vm.capNotice(vm.makeView([600, 600]), CAP, zh.errors),
    "这个视图有 360,000 个元素，超过了这个探索器能绘制的数量（max_elements=262,144）。" +
    "用 narrow、select 或切片把它缩小，就能看到它的图。");
  const column = vm.select(vm.makeView([1000, 1000]), 1, 0);
  assert.equal(vm.capNotice(column, CAP, zh.errors),
    "这个视图读取的存储单元从位置 0 到 999,000（存储共 1,000,000 个单元），跨度为 999,001 个单元，" +
    "超过了这个探索器能绘制的数量（max_elements=262,144）。用 narrow、select 或切片把它缩小，就能看到它的图。");
  assert.equal(vm.capNotice(column, CAP, WORDS.en.errors), vm.capNotice(column, CAP));
  // a typed argument that is not an int: English as before, Chinese from the error's key
  const v = vm.makeView([2, 3]);
  let err = null;
  try {
    readArgs(spec("narrow"), ["0", "x", "1"], v);
  } catch (e) {
    err = e;
  }
  assert.equal(err.message, "start must be an int, not 'x'");
  assert.equal(vm.messageIn(err, zh.errors), "start 必须是整数，而不是 'x'");
  assert.equal(vm.messageIn(err, WORDS.en.errors), err.message);
  // the readouts' labels and sentences, with the book's terms (步幅, never 步长)
  assert.deepEqual([zh.shape, zh.stride, zh.offset, zh.contiguous], ["形状", "步幅", "偏移", "连续"]);
  assert.equal(zh.storageName(6, 3), "存储位置 6，被 3 个元素读取");
  assert.equal(WORDS.en.storageName(6, 1), "storage 6, read by 1 element");
  assert.equal(zh.announce("x.t()", "(4, 3)", "(1, 4)", 0), "x.t()：形状 (4, 3)，步幅 (1, 4)，偏移 0");
  assert.ok(!JSON.stringify(Object.values(zh).filter((w) => typeof w === "string")).includes("步长"));
  for (const { op } of OPS) assert.ok(zh.opTitles[op] && WORDS.en.opTitles[op], op);
});

test("a value too wide for its cell shrinks to fit instead of vanishing", () => {
  // the largest cell (36 px, 32 px of room for text) at its 11 px font, ~6.6 px a character
  assert.equal(labelSize(4 * 6.6, 11, 32), 11);         // "1.17" fits as it is
  assert.equal(labelSize(6 * 6.6, 11, 32), 8);          // "-0.575" at 8 px: 28.8 px
  assert.equal(labelSize(12 * 6.6, 11, 32), 0);         // too long even at 7 px: left out
  assert.equal(labelSize(0, 11, 32), 0);                // no text
});
