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

import { MAX_BATCH, MAX_LEN, buildMasks, formatShape, parseLengths, sizeError } from "./mask_rule.js";

const MEANS = {
  sdpa: { label: "True = takes part", api: "F.scaled_dot_product_attention(attn_mask=mask)" },
  mha: { label: "True = ignored", api: "nn.MultiheadAttention(key_padding_mask=..., attn_mask=...)" },
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

/** The state's masks, or the message that says why there are none. */
export function analyse(state) {
  const parsed = parseLengths(state.lengths);
  if (!parsed.ok) return { ok: false, message: `lengths: ${parsed.error}`, field: "lengths" };
  const text = state.seqLen.trim();
  if (!/^\d+$/.test(text)) {
    return { ok: false, message: `L: "${text}" is not a whole number (the padded length)`, field: "len" };
  }
  const L = Number(text);
  const error = sizeError(parsed.lengths, L);
  if (error) return { ok: false, message: error, field: error.startsWith("L ") ? "len" : "lengths" };
  return { ok: true, lengths: parsed.lengths, L, masks: buildMasks(parsed.lengths, L, state.causal, state.convention) };
}

/** "1/3" of the weight for each allowed key when every score is equal; "NaN" with none. */
function weightText(count) {
  return count === 0 ? "NaN" : count === 1 ? "1" : `1/${count}`;
}

let instances = 0;

function render({ model, el }) {
  const uid = ++instances;
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
  const code = h("pre", { class: "tl-mx-code", "aria-label": "torch code that builds the mask" });
  const grids = h("div", { class: "tl-mx-grids" });
  const nan = h("div", { class: "tl-mx-nan" });

  root.append(
    h("div", { class: "tl-mx-title", text: "Attention masks from sequence lengths" }),
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
          h("label", { for: radio.id, text: `${radio.value}: ${MEANS[radio.value].label}` }),
        ]),
      ]),
    ]),
    message,
    code,
    grids,
    nan,
    h("div", { class: "tl-mx-legend" }, [
      h("span", { class: "tl-mx-key", "data-attend": "yes", text: "the key takes part" }),
      h("span", { class: "tl-mx-key", "data-attend": "no", text: "the key is masked" }),
      h("span", { class: "tl-mx-key", "data-nan": "true", text: "no key left: NaN after softmax" }),
      h("span", { class: "tl-mx-keynote", text: "weight each: what softmax gives each key when all scores are equal" }),
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
      h("span", { class: "tl-mx-corner", role: "columnheader" }, [h("span", { class: "tl-sr-only", text: kind === "padding" ? "sequence" : "query" })]),
      ...Array.from({ length: L }, (_, j) =>
        h("span", { class: "tl-mx-colhead", role: "columnheader", "aria-label": `key ${j}`, text: String(j) })),
      ...(weights ? [h("span", { class: "tl-mx-colhead tl-mx-wcol", role: "columnheader", text: "weight each" })] : []),
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
          "aria-label": `${name.long}, key ${j}: ${value ? "True" : "False"}, ${attend ? "takes part" : "masked"}`,
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
          "aria-label": count === 0
            ? `${name.long}: no key takes part, softmax gives NaN`
            : `${name.long}: ${count} key${count === 1 ? "" : "s"}, weight ${weightText(count)} each with equal scores`,
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
    const outcome = analyse(state);
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
      section("padding", "key-padding mask", masks.shapes.padding,
        keep ? "(True = real key)" : "(True = padding)",
        [grid("padding", "key-padding mask", masks.shapes.padding, masks.padding,
          (b) => ({ short: `seq ${b}`, long: `sequence ${b}` }), attendOf)]),
    ];
    if (masks.causal) {
      parts.push(section("causal", "causal mask", masks.shapes.causal,
        keep ? "(True = key ≤ query)" : "(True = future key)",
        [grid("causal", "causal mask", masks.shapes.causal, masks.causal,
          (i) => ({ short: `q ${i}`, long: `query ${i}` }), attendOf)]));
    }
    const combinedNote = masks.causal
      ? `padding ${formatShape([masks.shapes.padding[0], 1, 1, L])} ${keep ? "&" : "|"} causal (${L}, ${L}), broadcast`
      : "one row, broadcast over every query";
    parts.push(section("combined", "combined", masks.shapes.combined, combinedNote,
      masks.combined.map((sample, b) => h("div", { class: "tl-mx-sample" }, [
        h("div", { class: "tl-mx-caption", text: `sequence ${b}, length ${outcome.lengths[b]}` }),
        grid("combined", `combined mask, sequence ${b}`, masks.shapes.combined.slice(2), sample[0],
          (i) => masks.causal ? { short: `q ${i}`, long: `sequence ${b}, query ${i}` }
            : { short: "any q", long: `sequence ${b}, every query` },
          attendOf, masks.allowed[b], b),
      ]))));
    grids.replaceChildren(...parts);
    const bad = [...new Set(masks.fullyMasked.map(([b]) => b))];
    nan.textContent = bad.length
      ? `Fully masked: ${bad.map((b) => `sequence ${b}`).join(", ")} ` +
        `(${masks.fullyMasked.length} row${masks.fullyMasked.length === 1 ? "" : "s"} with no key). ` +
        "softmax of masked_fill(mask, -inf) is NaN there, and the NaN spreads; " +
        "set those rows to 0 after the softmax, or drop the empty sequences."
      : "Every row has at least one key: no NaN after softmax.";
    nan.dataset.nan = String(bad.length > 0);
    const said = `${formatShape(masks.shapes.combined)} mask for lengths ${outcome.lengths.join(", ")}, ` +
      `${state.causal ? "causal" : "not causal"}, ${MEANS[state.convention].label}; ` +
      (bad.length ? `${masks.fullyMasked.length} fully masked rows give NaN` : "no fully masked row");
    if (live.textContent !== said) live.textContent = said;
  }

  lengths.setAttribute("aria-label", `lengths, one per sequence, up to ${MAX_BATCH}`);
  seqLen.setAttribute("aria-label", `L, the padded length, 1 to ${MAX_LEN}`);
  const events = ["change:lengths", "change:seq_len", "change:causal", "change:convention"];
  for (const event of events) model.on(event, update);
  update();
  return () => events.forEach((event) => model.off(event, update));
}

export default { render };
