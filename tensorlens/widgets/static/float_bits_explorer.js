// float_bits_explorer.js -- the FloatBitsExplorer widget: a number's bits in a float format.
//
// The reader picks a format (float32, float16, bfloat16, float8_e4m3fn, float8_e5m2), types a
// number or clicks bits. The widget shows one button per bit, coloured by field (sign red,
// exponent blue, mantissa green, each group labelled), the stored value and its kind (zero,
// subnormal, normal, inf, NaN), the formula with the fields filled in, the rounding error
// (stored - typed), the spacing to the next value, and a note on overflow, saturation (e4m3fn
// has no inf), subnormals and NaN. All computing happens here (float_bits.js), so it works in
// the static book with no kernel. The bits are one tab stop (a toolbar): the arrow keys, Home
// and End move between bits, Space or Enter flips one; each bit names itself ("exponent bit 3
// of 5, worth 2**2: 1"); a polite live region says the new value; text that is not a number
// shows a message inside the widget. Loaded by tensorlens/widgets/float_bits_explorer.py, whose
// _esm is this file with float_bits.js inlined by tensorlens/widgets/_esm.py.
// State: the synced traits `dtype` (a format name), `text` (the number as typed) and `bits`
// (the stored pattern, a number).
//
// Stable hooks for browser tests: .tl-fb[data-state=ok|invalid][data-kind=...],
// select.tl-fb-format, input.tl-fb-input, button.tl-fb-bit[data-field=sign|exponent|mantissa]
// [data-index=i] (i = 0 is the leftmost, the sign), .tl-fb-value, .tl-fb-kind, .tl-fb-error
// (the message), .tl-fb-rounding, .tl-fb-spacing, .tl-fb-formula, .tl-fb-note, .tl-fb-code.

import {
  FORMATS, bias, bitString, decode, describe, explain, formatNumber, maxFinite, parseNumber, width,
} from "./float_bits.js";

const KIND_TEXT = {
  zero: "zero",
  subnormal: "subnormal (exponent field 0: no leading 1, fixed spacing)",
  normal: "normal",
  inf: "infinity",
  nan: "NaN (not a number)",
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
  const f = FORMATS[model.get("dtype")] ?? FORMATS.float32;
  const text = typeof model.get("text") === "string" ? model.get("text") : "";
  let bits = model.get("bits");
  if (!Number.isInteger(bits) || bits < 0 || bits >= 2 ** width(f)) bits = 0;
  return { f, text, bits };
}

/** Field of bit i (0 = leftmost) and what it is worth, in words. */
function bitInfo(f, i) {
  const e = f.exponentBits;
  const m = f.mantissaBits;
  if (i === 0) return { field: "sign", name: "sign bit", worth: "1 = negative" };
  if (i <= e) {
    const k = e - i;
    return { field: "exponent", name: `exponent bit ${i} of ${e}`, worth: `worth 2**${k} in the field` };
  }
  const k = i - e;
  return { field: "mantissa", name: `mantissa bit ${k} of ${m}`, worth: `worth 2**-${k}` };
}

/** The value as sign, power of two and mantissa, with the fields filled in. */
function formula(f, d) {
  const m = f.mantissaBits;
  const s = `(-1)**${d.sign}`;
  if (d.kind === "nan" || d.kind === "inf") {
    return `exponent field all ones (${2 ** f.exponentBits - 1})` +
      (d.kind === "inf" ? ", mantissa 0: infinity" : `, mantissa ${d.mantissa}: NaN`);
  }
  if (d.exponent === 0) {
    return `${s} × 2**${1 - bias(f)} × (0 + ${d.mantissa}/${2 ** m})`;
  }
  return `${s} × 2**(${d.exponent} - ${bias(f)}) × (1 + ${d.mantissa}/${2 ** m})`;
}

/** "-2.44e-5 (relative -2.44e-4)" */
function errorText(error, x) {
  if (error === 0) return "0: the number is stored exactly";
  const rel = error / Math.abs(x);
  return `${error.toPrecision(3)} (relative ${rel.toPrecision(3)})`;
}

function note(f, state, d, info, x) {
  const [maxExp, maxMan] = maxFinite(f);
  const max = decode(maxExp * 2 ** f.mantissaBits + maxMan, f).value;
  if (info && info.overflow) {
    if (!f.hasInf) {
      return `${formatNumber(x)} is past ${f.name}'s largest value, ${max}: it has no inf, and torch 2.13 ` +
        `saturates to ${d.value} (older versions give NaN).`;
    }
    return `Overflow: ${formatNumber(x)} is past ${f.name}'s largest finite value, ${max} (by half a step or more), so it is stored as inf.`;
  }
  if (d.kind === "nan") {
    return f.hasInf ? "NaN: exponent all ones and a mantissa that is not 0. Any arithmetic with it gives NaN."
      : `NaN: ${f.name} has one NaN pattern per sign, all ones, and no inf.`;
  }
  if (d.kind === "inf") return "inf: exponent all ones, mantissa 0.";
  if (d.kind === "subnormal") {
    return `Subnormal: below the smallest normal value, 2**${1 - bias(f)}, the spacing stays ${describe(d.spacing)} ` +
      "and fewer significant bits are left.";
  }
  if (d.kind === "zero") return d.sign ? "-0.0: equal to 0.0, but 1 / -0.0 is -inf." : "Zero: every exponent and mantissa bit is 0.";
  if (d.exponent === maxExp && d.mantissa === maxMan) {
    return f.hasInf ? `The largest finite ${f.name}: one step more in the mantissa is inf.`
      : `The largest ${f.name}: the pattern above it is NaN, and there is no inf.`;
  }
  if (info && info.value !== x && Number.isFinite(x)) {
    return `${formatNumber(x)} falls between two ${f.name} values; the nearer one is stored.`;
  }
  return "";
}

let instances = 0;

function render({ model, el }) {
  const uid = ++instances;
  const root = h("div", { class: "tl-fb", "data-state": "ok" });
  const format = h("select", { id: `tl-fb-${uid}-format`, class: "tl-fb-format" },
    Object.keys(FORMATS).map((name) => h("option", { value: name, text: name })));
  const input = h("input", {
    id: `tl-fb-${uid}-input`, class: "tl-fb-input", type: "text", spellcheck: "false", autocomplete: "off",
  });
  const message = h("div", { id: `tl-fb-${uid}-error`, class: "tl-fb-error", role: "alert" });
  input.setAttribute("aria-describedby", message.id);
  const fields = h("div", { class: "tl-fb-fields", "aria-hidden": "true" });
  const bitsRow = h("div", { class: "tl-fb-bits", role: "toolbar", "aria-label": "bits, sign first; arrows move, Space flips" });
  const value = h("code", { class: "tl-fb-value" });
  const kind = h("span", { class: "tl-fb-kind" });
  const formulaEl = h("code", { class: "tl-fb-formula" });
  const rounding = h("span", { class: "tl-fb-rounding" });
  const spacing = h("span", { class: "tl-fb-spacing" });
  const codeEl = h("code", { class: "tl-fb-code" });
  const layout = h("span", { class: "tl-fb-layout" });
  const noteEl = h("div", { class: "tl-fb-note" });
  const live = h("div", { class: "tl-sr-only tl-fb-live", role: "status", "aria-live": "polite" });
  const row = (label, node) => [h("dt", { text: label }), h("dd", {}, [node])];
  root.append(
    h("div", { class: "tl-fb-title", text: "Float bits: sign, exponent, mantissa" }),
    h("div", { class: "tl-fb-controls" }, [
      h("span", { class: "tl-fb-field" }, [h("label", { for: format.id, text: "format" }), format]),
      h("span", { class: "tl-fb-field" }, [h("label", { for: input.id, text: "number" }), input]),
    ]),
    message,
    h("div", { class: "tl-fb-scroll" }, [fields, bitsRow]),
    h("dl", { class: "tl-fb-readout" }, [
      ...row("layout", layout),
      ...row("stored", h("span", {}, [value, h("span", { text: " " }), kind])),
      ...row("formula", formulaEl),
      ...row("rounding error", rounding),
      ...row("spacing", spacing),
      ...row("torch", codeEl),
    ]),
    noteEl,
    live,
  );
  el.append(root);

  let focusIndex = 0;   // the bit that holds the toolbar's one tab stop
  let built = null;     // the format the bit buttons were built for
  let buttons = [];

  function save(changes) {
    for (const [key, v] of Object.entries(changes)) model.set(key, v);
    model.save_changes();
  }

  function flip(i) {
    const { f, bits } = readState(model);
    const place = 2 ** (width(f) - 1 - i);
    const next = Math.floor(bits / place) % 2 ? bits - place : bits + place;
    save({ bits: next, text: formatNumber(decode(next, f).value) });
  }

  function buildBits(f) {
    built = f.name;
    focusIndex = Math.min(focusIndex, width(f) - 1);
    buttons = Array.from({ length: width(f) }, (_, i) => {
      const info = bitInfo(f, i);
      const button = h("button", {
        type: "button", class: "tl-fb-bit", "data-field": info.field, "data-index": String(i),
        tabindex: i === focusIndex ? "0" : "-1",
      });
      button.addEventListener("click", () => {
        buttons[focusIndex].tabIndex = -1;
        focusIndex = i;
        button.tabIndex = 0;
        flip(i);
      });
      button.addEventListener("keydown", (event) => {
        const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: width(f) - 1 };
        if (!(event.key in moves)) return;
        event.preventDefault();
        const to = Math.max(0, Math.min(width(f) - 1, moves[event.key]));
        buttons[focusIndex].tabIndex = -1;
        focusIndex = to;
        buttons[to].tabIndex = 0;
        buttons[to].focus();
      });
      return button;
    });
    bitsRow.replaceChildren(...buttons);
    const span = (field, count, text) => h("span", { class: "tl-fb-group", "data-field": field, style: `width: ${count * 21 - 2}px` }, [h("span", { text })]);
    // The long label where it fits above its bits (about 6.5 px a character at 11 px).
    const label = (count, long, short) => (long.length * 6.5 <= count * 21 ? long : short);
    fields.replaceChildren(
      span("sign", 1, "s"),
      span("exponent", f.exponentBits, label(f.exponentBits, "exponent", "exp")),
      span("mantissa", f.mantissaBits, label(f.mantissaBits, "mantissa", "man")),
    );
    layout.textContent = `1 sign + ${f.exponentBits} exponent (bias ${bias(f)}) + ${f.mantissaBits} mantissa bits` +
      (f.hasInf ? "" : "; no inf");
  }

  format.addEventListener("change", () => {
    const state = readState(model);
    const f = FORMATS[format.value];
    const parsed = parseNumber(state.text);
    // Keep the number the reader typed; if it is not a number, carry over the stored value.
    const x = parsed.ok ? parsed.value : decode(state.bits, state.f).value;
    save({ dtype: f.name, bits: explain(x, f).bits, ...(parsed.ok ? {} : { text: formatNumber(x) }) });
  });
  input.addEventListener("input", () => {
    const { f } = readState(model);
    const parsed = parseNumber(input.value);
    save(parsed.ok ? { text: input.value, bits: explain(parsed.value, f).bits } : { text: input.value });
  });

  function update() {
    const { f, text, bits } = readState(model);
    if (built !== f.name) buildBits(f);
    if (format.value !== f.name) format.value = f.name;
    if (input.value !== text) input.value = text;
    const d = decode(bits, f);
    const parsed = parseNumber(text);
    root.dataset.state = parsed.ok ? "ok" : "invalid";
    root.dataset.kind = d.kind;
    input.setAttribute("aria-invalid", String(!parsed.ok));
    message.textContent = parsed.ok ? "" : `number: ${parsed.error}`;
    // What the typed number gives, when the bits still are what it stores.
    const typed = parsed.ok ? parsed.value : null;
    const info = typed !== null && explain(typed, f).bits === bits ? explain(typed, f) : null;
    const pattern = bits.toString(2).padStart(width(f), "0");
    buttons.forEach((button, i) => {
      const bit = pattern[i];
      const about = bitInfo(f, i);
      button.textContent = bit;
      button.setAttribute("aria-pressed", String(bit === "1"));
      button.setAttribute("aria-label", `${about.name}, ${about.worth}: ${bit}`);
    });
    value.textContent = describe(d.value);
    kind.textContent = `(${KIND_TEXT[d.kind]})`;
    formulaEl.textContent = formula(f, d);
    if (info === null) rounding.textContent = parsed.ok ? "(bits set by hand)" : "";
    else if (info.error === null) rounding.textContent = Number.isNaN(typed) || d.kind === "nan" ? "none: NaN" : info.overflow ? "overflow" : "none";
    else rounding.textContent = errorText(info.error, typed);
    spacing.textContent = d.spacing === null ? "none (not a finite number)"
      : `${describe(d.spacing)} to the next ${f.name} of larger magnitude`;
    const shown = parsed.ok ? text.trim() : formatNumber(d.value);
    codeEl.textContent = `torch.tensor(${pyLiteral(shown)}).to(torch.${f.name})`;
    noteEl.textContent = note(f, { text }, d, info, typed);
    const said = parsed.ok
      ? `${f.name} ${bitString(bits, f)} = ${formatNumber(d.value)}, ${d.kind}`
      : message.textContent;
    if (live.textContent !== said) live.textContent = said;
  }

  model.on("change:dtype", update);
  model.on("change:text", update);
  model.on("change:bits", update);
  update();
  return () => ["change:dtype", "change:text", "change:bits"].forEach((event) => model.off(event, update));
}

/** The typed number as Python source: inf and nan become float("inf") / float("nan"). */
function pyLiteral(text) {
  const t = text.replaceAll("_", "");
  const special = /^([+-]?)(inf|infinity|nan)$/i.exec(t);
  if (special) return `${special[1] === "-" ? "-" : ""}float("${special[2].toLowerCase() === "nan" ? "nan" : "inf"}")`;
  const power = /^([+-]?)2\s*\*\*\s*\(?\s*([+-]?\d+)\s*\)?$/.exec(t);
  if (power) return `${power[1] === "-" ? "-" : ""}2.0 ** ${power[2]}`;
  // "1" or "-0" would make an integer tensor (and lose the sign of -0): write a float.
  return /^[+-]?\d+$/.test(t) ? `${t}.0` : t;
}

export default { render };
