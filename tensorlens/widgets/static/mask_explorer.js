// mask_explorer.js -- the MaskExplorer widget: attention masks built from sequence lengths.
//
// The reader edits the lengths and the padded length L, switches the causal mask on and off and
// picks what True means (scaled_dot_product_attention's attn_mask: True = takes part;
// nn.MultiheadAttention's key_padding_mask: True = ignored). The widget draws the key-padding
// mask (N, L), the causal mask (L, L) and their broadcast combination as grids of True/False,
// says how much weight each key of a row gets when all scores are equal, flags the rows with no
// key at all (NaN after softmax), and prints the torch line that builds the combination. All
// computing happens here (mask_rule.js), so it works in the static book with no kernel.
// Grids are ARIA tables whose cells say themselves in words ("sequence 1, query 2, key 3:
// False, ignored"), so colour is never the only cue; a polite live region says what changed;
// bad input shows a message inside the widget. Loaded by tensorlens/widgets/mask_explorer.py,
// whose _esm is this file with mask_rule.js inlined by tensorlens/widgets/_esm.py.
// State: the synced traits `lengths` (text), `seq_len` (the text of L), `causal` (bool) and
// `convention` ("sdpa" or "mha").
//
// Stable hooks for browser tests: .tl-mx[data-state=ok|invalid], input.tl-mx-lengths,
// input.tl-mx-len, input.tl-mx-causal, input.tl-mx-convention[value=sdpa|mha], .tl-mx-error,
// .tl-mx-code, .tl-mx-shape[data-grid=padding|causal|combined],
// .tl-mx-cell[data-grid][data-b][data-i][data-j][data-value=true|false][data-attend=yes|no],
// .tl-mx-weight[data-b][data-i][data-nan=true|false], .tl-mx-nan (the fully-masked note).
//
// The widget's own words are the page's language (WORDS, picked by ./i18n.js: Chinese on the
// Chinese book's lang="zh-CN" pages, English anywhere else). What stays as written in both: the
// names of the arguments on the controls (lengths, L, causal, convention, sdpa, mha), which the
// pages quote; the torch code; True/False, T/F, NaN, "key"/"query" (the Chinese pages keep them).

import { MAX_BATCH, MAX_LEN, RULE_WORDS, buildMasks, formatShape, parseLengths, sizeError, sizeProblem } from "./mask_rule.js";
import { pageLanguage } from "./i18n.js";

/** The conventions a radio button picks (the label is WORDS[lang].means[key]). */
const MEANS = {
  sdpa: { api: "F.scaled_dot_product_attention(attn_mask=mask)" },
  mha: { api: "nn.MultiheadAttention(key_padding_mask=..., attn_mask=...)" },
};

/** A list of sequence numbers, or one number (how tests/js/i18n.test.mjs calls the functions). */
const listOf = (items) => [].concat(items);

/** The explorer's own words, by the language of the page it is drawn on (./i18n.js). */
export const WORDS = {
  en: {
    title: "Attention masks from sequence lengths",
    means: { sdpa: "True = takes part", mha: "True = ignored" },
    codeLabel: "torch code that builds the mask",
    lengthsLabel: (max) => `lengths, one per sequence, up to ${max}`,
    lenLabel: (max) => `L, the padded length, 1 to ${max}`,
    legendYes: "the key takes part",
    legendNo: "the key is masked",
    legendNaN: "no key left: NaN after softmax",
    legendWeight: "weight each: what softmax gives each key when all scores are equal",
    sequenceHead: "sequence",
    queryHead: "query",
    keyHead: (j) => `key ${j}`,
    weightHead: "weight each",
    cell: (name, j, value, attend) => `${name}, key ${j}: ${value ? "True" : "False"}, ${attend ? "takes part" : "masked"}`,
    noKey: (name) => `${name}: no key takes part, softmax gives NaN`,
    keys: (name, count, weight) => `${name}: ${count} key${count === 1 ? "" : "s"}, weight ${weight} each with equal scores`,
    paddingTitle: "key-padding mask",
    causalTitle: "causal mask",
    combinedTitle: "combined",
    realKey: "(True = real key)",
    paddingKey: "(True = padding)",
    pastKey: "(True = key ≤ query)",
    futureKey: "(True = future key)",
    combinedNote: (shape, op, L) => `padding ${shape} ${op} causal (${L}, ${L}), broadcast`,
    oneRow: "one row, broadcast over every query",
    seqShort: (b) => `seq ${b}`,
    sequence: (b) => `sequence ${b}`,
    queryShort: (i) => `q ${i}`,
    query: (i) => `query ${i}`,
    sequenceQuery: (b, i) => `sequence ${b}, query ${i}`,
    anyQuery: "any q",
    everyQuery: (b) => `sequence ${b}, every query`,
    caption: (b, n) => `sequence ${b}, length ${n}`,
    combinedLabel: (b) => `combined mask, sequence ${b}`,
    fullyMasked: (seqs, rows) => `Fully masked: ${listOf(seqs).map((b) => `sequence ${b}`).join(", ")} ` +
      `(${rows} row${rows === 1 ? "" : "s"} with no key). ` +
      "softmax of masked_fill(mask, -inf) is NaN there, and the NaN spreads; " +
      "set those rows to 0 after the softmax, or drop the empty sequences.",
    noNaN: "Every row has at least one key: no NaN after softmax.",
    said: (shape, lengths, causal, means, rows) => `${shape} mask for lengths ${lengths}, ` +
      `${causal ? "causal" : "not causal"}, ${means}; ` +
      (rows ? `${rows} fully masked rows give NaN` : "no fully masked row"),
    lengthsError: (error) => `lengths: ${error}`,
    notWhole: (text) => `L: "${text}" is not a whole number (the padded length)`,
    rule: RULE_WORDS.en,
  },
  zh: {
    title: "由序列长度构造注意力掩码",
    means: { sdpa: "True = 参与", mha: "True = 忽略" },
    codeLabel: "构造该掩码的 torch 代码",
    lengthsLabel: (max) => `lengths：每个序列一个长度，最多 ${max} 个`,
    lenLabel: (max) => `L：填充后的长度，1 到 ${max}`,
    legendYes: "该 key 参与",
    legendNo: "该 key 被遮住",
    legendNaN: "一个 key 都不剩：softmax 之后为 NaN",
    legendWeight: "每个 key 的权重：所有分数相等时 softmax 分给每个 key 的权重",
    sequenceHead: "序列",
    queryHead: "query",
    keyHead: (j) => `key ${j}`,
    weightHead: "每个 key 的权重",
    cell: (name, j, value, attend) => `${name}，key ${j}：${value ? "True" : "False"}，${attend ? "参与" : "被遮住"}`,
    noKey: (name) => `${name}：没有 key 参与，softmax 给出 NaN`,
    keys: (name, count, weight) => `${name}：${count} 个 key，分数相等时每个 key 的权重为 ${weight}`,
    paddingTitle: "key 填充掩码",
    causalTitle: "因果掩码",
    combinedTitle: "组合掩码",
    realKey: "（True = 真实的 key）",
    paddingKey: "（True = 填充）",
    pastKey: "（True = 不在 query 之后的 key）",
    futureKey: "（True = 未来的 key）",
    combinedNote: (shape, op, L) => `填充掩码 ${shape} ${op} 因果掩码 (${L}, ${L})，广播`,
    oneRow: "只有一行，在每个 query 上广播",
    seqShort: (b) => `序列 ${b}`,
    sequence: (b) => `序列 ${b}`,
    queryShort: (i) => `q ${i}`,
    query: (i) => `query ${i}`,
    sequenceQuery: (b, i) => `序列 ${b}，query ${i}`,
    anyQuery: "任意 q",
    everyQuery: (b) => `序列 ${b}，所有 query`,
    caption: (b, n) => `序列 ${b}，长度 ${n}`,
    combinedLabel: (b) => `组合掩码，序列 ${b}`,
    fullyMasked: (seqs, rows) => `完全被遮住：${listOf(seqs).map((b) => `序列 ${b}`).join("、")}` +
      `（${rows} 行没有任何 key）。` +
      "在这些行上，masked_fill(mask, -inf) 的 softmax 为 NaN，而且 NaN 会扩散；" +
      "请在 softmax 之后把这些行设为 0，或者去掉空序列。",
    noNaN: "每一行都至少有一个 key：softmax 之后不会出现 NaN。",
    said: (shape, lengths, causal, means, rows) => `长度为 ${lengths} 的 ${shape} 掩码，` +
      `${causal ? "含因果掩码" : "不含因果掩码"}，${means}；` +
      (rows ? `${rows} 个完全被遮住的行得到 NaN` : "没有完全被遮住的行"),
    lengthsError: (error) => `lengths 有误：${error}`,
    notWhole: (text) => `L 有误：“${text}” 不是整数（L 是填充后的长度）`,
    rule: RULE_WORDS.zh,
  },
};

function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else if (key === "class") node.className = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

/** The state, tolerating a malformed trait rather than breaking. */
function readState(model) {
  const str = (key, fallback) => (typeof model.get(key) === "string" ? model.get(key) : fallback);
  const convention = model.get("convention") === "mha" ? "mha" : "sdpa";
  return { lengths: str("lengths", ""), seqLen: str("seq_len", ""), causal: model.get("causal") === true, convention };
}

/** The state's masks, or the message (in the language of `words`) that says why there are none. */
export function analyse(state, words = WORDS.en) {
  const parsed = parseLengths(state.lengths, words.rule);
  if (!parsed.ok) return { ok: false, message: words.lengthsError(parsed.error), field: "lengths" };
  const text = state.seqLen.trim();
  if (!/^\d+$/.test(text)) return { ok: false, message: words.notWhole(text), field: "len" };
  const L = Number(text);
  const field = sizeProblem(parsed.lengths, L);
  if (field) return { ok: false, message: sizeError(parsed.lengths, L, words.rule), field };
  return { ok: true, lengths: parsed.lengths, L, masks: buildMasks(parsed.lengths, L, state.causal, state.convention) };
}

/** "1/3" of the weight for each allowed key when every score is equal; "NaN" with none. */
function weightText(count) {
  return count === 0 ? "NaN" : count === 1 ? "1" : `1/${count}`;
}

let instances = 0;

function render({ model, el }) {
  const uid = ++instances;
  const words = WORDS[pageLanguage(el)];
  const root = h("div", { class: "tl-mx", "data-state": "ok" });
  const id = (name) => `tl-mx-${uid}-${name}`;

  const lengths = h("input", {
    id: id("lengths"), class: "tl-mx-lengths", type: "text", spellcheck: "false", autocomplete: "off",
  });
  const seqLen = h("input", {
    id: id("len"), class: "tl-mx-len", type: "text", inputmode: "numeric", spellcheck: "false", autocomplete: "off",
  });
  const causal = h("input", { id: id("causal"), class: "tl-mx-causal", type: "checkbox" });
  const radios = Object.keys(MEANS).map((key) =>
    h("input", { id: id(key), class: "tl-mx-convention", type: "radio", name: id("convention"), value: key }),
  );
  const message = h("div", { class: "tl-mx-error", role: "alert" });
  const live = h("div", { class: "tl-sr-only tl-mx-live", role: "status", "aria-live": "polite" });
  const code = h("pre", { class: "tl-mx-code", "aria-label": words.codeLabel });
  const grids = h("div", { class: "tl-mx-grids" });
  const nan = h("div", { class: "tl-mx-nan" });

  root.append(
    h("div", { class: "tl-mx-title", text: words.title }),
    h("div", { class: "tl-mx-controls" }, [
      h("span", { class: "tl-mx-field" }, [
        h("label", { for: id("lengths"), text: "lengths" }), lengths,
      ]),
      h("span", { class: "tl-mx-field" }, [h("label", { for: id("len"), text: "L" }), seqLen]),
      h("span", { class: "tl-mx-field" }, [causal, h("label", { for: id("causal"), text: "causal" })]),
      h("span", { class: "tl-mx-field tl-mx-means", role: "radiogroup", "aria-labelledby": id("means") }, [
        h("span", { id: id("means"), text: "convention:" }),
        ...radios.flatMap((radio) => [
          radio,
          h("label", { for: radio.id, text: `${radio.value}: ${words.means[radio.value]}` }),
        ]),
      ]),
    ]),
    message,
    code,
    grids,
    nan,
    h("div", { class: "tl-mx-legend" }, [
      h("span", { class: "tl-mx-key", "data-attend": "yes", text: words.legendYes }),
      h("span", { class: "tl-mx-key", "data-attend": "no", text: words.legendNo }),
      h("span", { class: "tl-mx-key", "data-nan": "true", text: words.legendNaN }),
      h("span", { class: "tl-mx-keynote", text: words.legendWeight }),
    ]),
    live,
  );
  el.append(root);

  function save(changes) {
    for (const [key, value] of Object.entries(changes)) model.set(key, value);
    model.save_changes();
  }
  lengths.addEventListener("input", () => save({ lengths: lengths.value }));
  seqLen.addEventListener("input", () => save({ seq_len: seqLen.value }));
  causal.addEventListener("change", () => save({ causal: causal.checked }));
  for (const radio of radios) radio.addEventListener("change", () => radio.checked && save({ convention: radio.value }));

  // One grid: an ARIA table with a header row of keys and a row per sequence or query.
  function grid(kind, title, shape, rows, rowName, attendOf, weights, b) {
    const L = rows[0].length;
    const table = h("div", {
      class: "tl-mx-table",
      role: "table",
      "aria-label": `${title} ${formatShape(shape)}`,
      style: `grid-template-columns: max-content repeat(${L}, 1.9em)${weights ? " max-content" : ""}`,
    });
    const head = h("div", { class: "tl-mx-row", role: "row" }, [
      h("span", { class: "tl-mx-corner", role: "columnheader" }, [h("span", { class: "tl-sr-only", text: kind === "padding" ? words.sequenceHead : words.queryHead })]),
      ...Array.from({ length: L }, (_, j) =>
        h("span", { class: "tl-mx-colhead", role: "columnheader", "aria-label": words.keyHead(j), text: String(j) })),
      ...(weights ? [h("span", { class: "tl-mx-colhead tl-mx-wcol", role: "columnheader", text: words.weightHead })] : []),
    ]);
    table.append(head);
    rows.forEach((row, i) => {
      const name = rowName(i);
      const line = h("div", { class: "tl-mx-row", role: "row" }, [
        h("span", { class: "tl-mx-rowhead", role: "rowheader", text: name.short, "aria-label": name.long }),
      ]);
      row.forEach((value, j) => {
        const attend = attendOf(value);
        line.append(h("span", {
          class: "tl-mx-cell",
          role: "cell",
          "data-grid": kind,
          ...(b === undefined ? {} : { "data-b": String(b) }),
          "data-i": String(i),
          "data-j": String(j),
          "data-value": String(value),
          "data-attend": attend ? "yes" : "no",
          "data-nan": weights && weights[i] === 0 ? "true" : "false",
          "aria-label": words.cell(name.long, j, value, attend),
          text: value ? "T" : "F",
        }));
      });
      if (weights) {
        const count = weights[i];
        line.append(h("span", {
          class: "tl-mx-weight",
          role: "cell",
          "data-b": String(b),
          "data-i": String(i),
          "data-nan": String(count === 0),
          "aria-label": count === 0 ? words.noKey(name.long) : words.keys(name.long, count, weightText(count)),
          text: weightText(count),
        }));
      }
      table.append(line);
    });
    return table;
  }

  function section(kind, title, shape, note, tables) {
    return h("div", { class: "tl-mx-section", "data-grid": kind }, [
      h("div", { class: "tl-mx-heading" }, [
        h("span", { text: `${title} ` }),
        h("code", { class: "tl-mx-shape", "data-grid": kind, text: formatShape(shape) }),
        h("span", { class: "tl-mx-note", text: note ? ` ${note}` : "" }),
      ]),
      h("div", { class: "tl-mx-tables" }, tables),
    ]);
  }

  function update() {
    const state = readState(model);
    if (lengths.value !== state.lengths) lengths.value = state.lengths;
    if (seqLen.value !== state.seqLen) seqLen.value = state.seqLen;
    causal.checked = state.causal;
    for (const radio of radios) radio.checked = radio.value === state.convention;
    const outcome = analyse(state, words);
    root.dataset.state = outcome.ok ? "ok" : "invalid";
    lengths.setAttribute("aria-invalid", String(!outcome.ok && outcome.field === "lengths"));
    seqLen.setAttribute("aria-invalid", String(!outcome.ok && outcome.field === "len"));
    lengths.setAttribute("aria-describedby", id("error"));
    message.id = id("error");
    message.textContent = outcome.ok ? "" : outcome.message;
    if (!outcome.ok) {
      // The last good drawing stays, dimmed, so the reader still sees what the edit changes.
      grids.classList.add("tl-mx-stale");
      if (live.textContent !== outcome.message) live.textContent = outcome.message;
      return;
    }
    grids.classList.remove("tl-mx-stale");
    const { masks, L } = outcome;
    const keep = state.convention === "sdpa";
    const attendOf = (value) => value === keep;
    code.textContent = `lengths = torch.tensor([${outcome.lengths.join(", ")}])\n${masks.code}`;
    const parts = [
      section("padding", words.paddingTitle, masks.shapes.padding,
        keep ? words.realKey : words.paddingKey,
        [grid("padding", words.paddingTitle, masks.shapes.padding, masks.padding,
          (b) => ({ short: words.seqShort(b), long: words.sequence(b) }), attendOf)]),
    ];
    if (masks.causal) {
      parts.push(section("causal", words.causalTitle, masks.shapes.causal,
        keep ? words.pastKey : words.futureKey,
        [grid("causal", words.causalTitle, masks.shapes.causal, masks.causal,
          (i) => ({ short: words.queryShort(i), long: words.query(i) }), attendOf)]));
    }
    const combinedNote = masks.causal
      ? words.combinedNote(formatShape([masks.shapes.padding[0], 1, 1, L]), keep ? "&" : "|", L)
      : words.oneRow;
    parts.push(section("combined", words.combinedTitle, masks.shapes.combined, combinedNote,
      masks.combined.map((sample, b) => h("div", { class: "tl-mx-sample" }, [
        h("div", { class: "tl-mx-caption", text: words.caption(b, outcome.lengths[b]) }),
        grid("combined", words.combinedLabel(b), masks.shapes.combined.slice(2), sample[0],
          (i) => masks.causal ? { short: words.queryShort(i), long: words.sequenceQuery(b, i) }
            : { short: words.anyQuery, long: words.everyQuery(b) },
          attendOf, masks.allowed[b], b),
      ]))));
    grids.replaceChildren(...parts);
    const bad = [...new Set(masks.fullyMasked.map(([b]) => b))];
    nan.textContent = bad.length ? words.fullyMasked(bad, masks.fullyMasked.length) : words.noNaN;
    nan.dataset.nan = String(bad.length > 0);
    const said = words.said(formatShape(masks.shapes.combined), outcome.lengths.join(", "), state.causal,
      words.means[state.convention], bad.length ? masks.fullyMasked.length : 0);
    if (live.textContent !== said) live.textContent = said;
  }

  lengths.setAttribute("aria-label", words.lengthsLabel(MAX_BATCH));
  seqLen.setAttribute("aria-label", words.lenLabel(MAX_LEN));
  const events = ["change:lengths", "change:seq_len", "change:causal", "change:convention"];
  for (const event of events) model.on(event, update);
  update();
  return () => events.forEach((event) => model.off(event, update));
}

export default { render };
