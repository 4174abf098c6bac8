// mask_rule.js -- attention masks from sequence lengths, as pure functions (no DOM).
//
// The same rules as tensorlens/masks.py: the key-padding mask (N, L), the causal mask (L, L)
// and their broadcast combination ((N, 1, L, L), or (N, 1, 1, L) without the causal mask), in
// either convention: "sdpa" (F.scaled_dot_product_attention's bool attn_mask, True = takes part)
// or "mha" (nn.MultiheadAttention's key_padding_mask and bool attn_mask, True = ignored); how
// many keys each query row may attend to, the fully masked rows (NaN after a softmax of
// masked_fill(..., -inf)), and the torch line that builds the combination. Loaded by
// mask_explorer.js (inlined by tensorlens/widgets/_esm.py) and tested against torch-generated
// fixtures by tests/js/mask_rule.test.mjs. The messages come in the page's two languages
// (RULE_WORDS, which mask_explorer.js puts in its WORDS); the default is the English one, the
// same text as tensorlens/masks.py raises.

export const MAX_BATCH = 6;
export const MAX_LEN = 12;

/** The messages of parseLengths and sizeError, in English and in Chinese (same keys). */
export const RULE_WORDS = {
  en: {
    notText: "lengths must be text",
    doubleComma: "two commas with no length between them",
    none: "no lengths: type one per sequence, such as 4, 2, 3",
    notLength: (part, negative) => `"${part}" is not a length${negative ? " (a length cannot be negative)" : ""}`,
    count: (max, got) => `lengths: give 1 to ${max} sequences, got ${got}`,
    range: (max, got) => `L must be between 1 and ${max}, got ${got}`,
    tooLong: (b, n, L) => `lengths[${b}] is ${n}, longer than L = ${L}`,
  },
  zh: {
    notText: "lengths 必须是文本",
    doubleComma: "两个逗号之间没有长度",
    none: "没有长度：请为每个序列输入一个长度，例如 4, 2, 3",
    notLength: (part, negative) => `“${part}” 不是长度${negative ? "（长度不能为负）" : ""}`,
    count: (max, got) => `lengths 有误：应给出 1 到 ${max} 个序列，实际为 ${got} 个`,
    range: (max, got) => `L 必须在 1 到 ${max} 之间，实际为 ${got}`,
    tooLong: (b, n, L) => `lengths[${b}] 为 ${n}，超过了 L = ${L}`,
  },
};

const WRAPPERS = [/^torch\.tensor\(\s*\[(.*)\]\s*\)$/s, /^\[(.*)\]$/s, /^\((.*)\)$/s];

/**
 * "4, 2, 3", "[4 2 3]", "torch.tensor([4, 2, 3])" -> [4, 2, 3].
 * @param {string} text
 * @param {object} [words] RULE_WORDS.en or RULE_WORDS.zh: the language of the error
 * @returns {{ok: true, lengths: number[]} | {ok: false, error: string}}
 */
export function parseLengths(text, words = RULE_WORDS.en) {
  if (typeof text !== "string") return { ok: false, error: words.notText };
  let body = text.trim();
  for (const pattern of WRAPPERS) {
    const match = pattern.exec(body);
    if (match) {
      body = match[1];
      break;
    }
  }
  if (/,\s*,/.test(body) || /^\s*,/.test(body)) {
    return { ok: false, error: words.doubleComma };
  }
  const parts = body.split(/[\s,]+/).filter((p) => p !== "");
  if (parts.length === 0) return { ok: false, error: words.none };
  const lengths = [];
  for (const part of parts) {
    if (!/^\d+$/.test(part)) return { ok: false, error: words.notLength(part, /^-\d+$/.test(part)) };
    lengths.push(Number(part));
  }
  return { ok: true, lengths };
}

/** Which input is out of range: "lengths", "len" (L) or "" when both are fine (check_sizes). */
export function sizeProblem(lengths, L) {
  if (lengths.length < 1 || lengths.length > MAX_BATCH) return "lengths";
  if (!Number.isInteger(L) || L < 1 || L > MAX_LEN) return "len";
  return lengths.some((n) => n > L) ? "lengths" : "";
}

/** The message for lengths or L out of range, or "" when they are fine (check_sizes). */
export function sizeError(lengths, L, words = RULE_WORDS.en) {
  if (lengths.length < 1 || lengths.length > MAX_BATCH) return words.count(MAX_BATCH, lengths.length);
  if (!Number.isInteger(L) || L < 1 || L > MAX_LEN) return words.range(MAX_LEN, L);
  const b = lengths.findIndex((n) => n > L);
  if (b >= 0) return words.tooLong(b, lengths[b], L);
  return "";
}

/** The torch expression of the combined mask (lengths: a tensor of the lengths). */
export function torchCode(L, causal, convention) {
  const pad = convention === "sdpa"
    ? `(torch.arange(${L}) < lengths[:, None])[:, None, None, :]`
    : `(torch.arange(${L}) >= lengths[:, None])[:, None, None, :]`;
  const tri = convention === "sdpa"
    ? ` & torch.ones(${L}, ${L}, dtype=torch.bool).tril()`
    : ` | torch.ones(${L}, ${L}, dtype=torch.bool).triu(1)`;
  return `mask = ${pad}${causal ? tri : ""}`;
}

/** Everything the explorer draws (build_masks in Python); lengths and L must be in range. */
export function buildMasks(lengths, L, causal, convention) {
  const keep = convention === "sdpa";
  const range = (n) => Array.from({ length: n }, (_, i) => i);
  const padding = lengths.map((n) => range(L).map((j) => (j < n) === keep));
  const tri = causal ? range(L).map((i) => range(L).map((j) => (j <= i) === keep)) : null;
  const rows = causal ? L : 1;
  const combined = [];
  const allowed = [];
  const fullyMasked = [];
  lengths.forEach((n, b) => {
    const grid = [];
    const counts = [];
    for (let i = 0; i < rows; i++) {
      const ok = range(L).map((j) => j < n && (!causal || j <= i));
      grid.push(ok.map((v) => v === keep));
      const count = ok.filter(Boolean).length;
      counts.push(count);
      if (count === 0) fullyMasked.push([b, i]);
    }
    combined.push([grid]);
    allowed.push(counts);
  });
  const N = lengths.length;
  return {
    padding,
    causal: tri,
    combined,
    allowed,
    fullyMasked,
    shapes: { padding: [N, L], causal: causal ? [L, L] : null, combined: [N, 1, causal ? L : 1, L] },
    code: torchCode(L, causal, convention),
  };
}

/** "(3, 1, 4, 4)" */
export function formatShape(shape) {
  return `(${shape.join(", ")}${shape.length === 1 ? "," : ""})`;
}
