// broadcast_rule.js -- PyTorch's broadcasting rule, as pure functions (no DOM).
//
// Given the shapes of some operands, it aligns them from the right, says for every dim of every
// operand whether it is kept, stretched (size 1 -> n, stride 0) or prepended (a new dim on the
// left), computes the result shape and the strides each operand's broadcast view would have, or
// reports the exact dim, operand and sizes that conflict -- in the order torch reports them.
// Loaded by broadcast_explorer.js (inlined into the widget's ES module by tensorlens/widgets/_esm.py) and
// tested against torch-generated fixtures by tests/js/broadcast_rule.test.mjs.
// Its messages are the widget's own words (torch prints none of them), in English and Chinese:
// RULE_WORDS = {en, zh}; parseShape and conflictMessage take one of the two (English by default),
// and the explorer puts them in its WORDS table (./i18n.js says which language a page is in).

import { contiguousStrides } from "./view_math.js";

/** @typedef {{dim: number, operand: number, size: number, other: number, otherOperand: number}} Conflict */
/** @typedef {"kept" | "stretched" | "prepended"} Mark */

/**
 * The rule's messages by language, same keys in both. English is also the text of the Python
 * side (tensorlens/widgets/broadcast_explorer.py's parse_shape and repr).
 */
export const RULE_WORDS = {
  en: {
    notText: "a shape must be text",
    empty: "empty: write () for a 0-d tensor",
    twoCommas: "two commas with no size between them",
    notSize: (part) => `"${part}" is not a size`,
    negative: (part) => `"${part}" is not a size (sizes cannot be negative)`,
    tooLarge: (part) => `${part} is too large`,
    operand: (i) => `operand ${i}`,
    conflict: (dim, resultDim, name, size, otherName, other) =>
      `cannot broadcast: at dim ${dim} (dim ${resultDim} of the result) ${name} has ` +
      `size ${size} but ${otherName} has size ${other}; ` +
      "sizes must be equal, or one of them 1",
  },
  zh: {
    notText: "形状必须是文本",
    empty: "为空：0 维张量请写 ()",
    twoCommas: "两个逗号之间缺少大小",
    notSize: (part) => `"${part}" 不是合法的大小`,
    negative: (part) => `"${part}" 不是合法的大小（大小不能为负数）`,
    tooLarge: (part) => `${part} 太大了`,
    operand: (i) => `操作数 ${i}`,
    conflict: (dim, resultDim, name, size, otherName, other) =>
      `无法广播：在维度 ${dim}（结果的维度 ${resultDim}）上，${name} 的大小为 ${size}，` +
      `而 ${otherName} 的大小为 ${other}；各大小必须相等，或者其中一个为 1`,
  },
};

/** "[3, 5]" for [3, 5]; "[]" for a 0-d shape. */
export function formatShape(shape) {
  return `[${shape.join(", ")}]`;
}


// One optional wrapper (torch.Size([...]), [...] or (...)), then whole numbers separated by
// commas and/or spaces. The same grammar is implemented by tensorlens/widgets/broadcast_explorer.py and
// both are checked on the "parse" fixtures.
const WRAPPERS = [
  [/^torch\.Size\(\s*\[(.*)\]\s*\)$/s, "torch.Size([...])"],
  [/^\[(.*)\]$/s, "[...]"],
  [/^\((.*)\)$/s, "(...)"],
];

/**
 * Read a shape typed by a reader: "3, 1", "[3, 1]", "(3,)", "torch.Size([3, 1])", "()" for 0-d.
 * The error is in the language of `words` (RULE_WORDS.en or RULE_WORDS.zh).
 * @returns {{ok: true, shape: number[]} | {ok: false, error: string}}
 */
export function parseShape(text, words = RULE_WORDS.en) {
  if (typeof text !== "string") return { ok: false, error: words.notText };
  let body = text.trim();
  if (body === "") return { ok: false, error: words.empty };
  for (const [pattern] of WRAPPERS) {
    const match = pattern.exec(body);
    if (match) {
      body = match[1];
      break;
    }
  }
  const parts = body.split(/[\s,]+/).filter((part) => part !== "");
  // "3,,1" or "(,)" would otherwise pass silently.
  if (/,\s*,/.test(body) || /^\s*,/.test(body)) {
    return { ok: false, error: words.twoCommas };
  }
  const shape = [];
  for (const part of parts) {
    if (!/^\d+$/.test(part)) {
      return { ok: false, error: /^-\d+$/.test(part) ? words.negative(part) : words.notSize(part) };
    }
    const size = Number(part);
    if (!Number.isSafeInteger(size)) return { ok: false, error: words.tooLarge(part) };
    shape.push(size);
  }
  return { ok: true, shape };
}

/**
 * The broadcast result shape, scanning operands in order and dims from the right, as
 * torch.broadcast_shapes does, so that a conflict names the same dim and operand as torch.
 * @param {number[][]} shapes
 * @returns {{ok: true, result: number[]} | {ok: false, conflict: Conflict}}
 */
export function broadcastShapes(shapes) {
  const rank = Math.max(0, ...shapes.map((shape) => shape.length));
  const result = new Array(rank).fill(1);
  // Which operand set each result size (the first one that was not 1 there).
  const source = new Array(rank).fill(-1);
  for (let i = 0; i < shapes.length; i++) {
    const shape = shapes[i];
    for (let back = 1; back <= shape.length; back++) {
      const size = shape[shape.length - back];
      const at = rank - back;
      if (result[at] === 1) {
        if (size !== 1) {
          result[at] = size;
          source[at] = i;
        }
      } else if (size !== 1 && size !== result[at]) {
        return {
          ok: false,
          conflict: { dim: -back, operand: i, size, other: result[at], otherOperand: source[at] },
        };
      }
    }
  }
  return { ok: true, result };
}

/**
 * Strides of the view torch.broadcast_to(x, result) for x of this shape and stride: a dim that
 * grows gets stride 0; a new dim of size 1 gets the stride torch's expand gives it (the next
 * dim's size times its stride), so the numbers match torch exactly.
 */
export function broadcastStrides(shape, stride, result) {
  const n = result.length;
  const out = new Array(n);
  for (let i = n - 1; i >= 0; i--) {
    const d = shape.length - (n - i);
    let s;
    if (d >= 0) s = stride[d];
    else s = i + 1 < n ? result[i + 1] * out[i + 1] : 0;
    const size = d >= 0 ? shape[d] : 1;
    out[i] = size === result[i] ? s : 0;
  }
  return out;
}

/**
 * Everything the explorer draws.
 * @param {{shape: number[], stride?: number[] | null}[]} operands
 * @returns {{ok: boolean, rank: number, result: number[] | null, conflict: Conflict | null,
 *   rows: {shape: number[], padded: (number | null)[], marks: (Mark | null)[], strides: number[] | null}[]}}
 *   padded[j] is null where the operand has no dim (prepended); marks are null on a conflict.
 */
export function explainBroadcast(operands) {
  const shapes = operands.map((op) => op.shape);
  const outcome = broadcastShapes(shapes);
  const rank = Math.max(0, ...shapes.map((shape) => shape.length));
  const rows = operands.map((op) => {
    const padded = new Array(rank - op.shape.length).fill(null).concat(op.shape);
    if (!outcome.ok) return { shape: op.shape, padded, marks: null, strides: null };
    const result = outcome.result;
    const marks = padded.map((size, j) => {
      if (size === null) return "prepended";
      return size === result[j] ? "kept" : "stretched";
    });
    const stride = op.stride ?? contiguousStrides(op.shape);
    return { shape: op.shape, padded, marks, strides: broadcastStrides(op.shape, stride, result) };
  });
  return {
    ok: outcome.ok,
    rank,
    result: outcome.ok ? outcome.result : null,
    conflict: outcome.ok ? null : outcome.conflict,
    rows,
  };
}

/** A reader-facing sentence for a conflict, in the language of `words`; names[i] is operand i's label. */
export function conflictMessage(conflict, names, rank, words = RULE_WORDS.en) {
  const { dim, operand, size, other, otherOperand } = conflict;
  const name = (i) => names[i] ?? words.operand(i);
  return words.conflict(dim, rank + dim, name(operand), size, name(otherOperand), other);
}
