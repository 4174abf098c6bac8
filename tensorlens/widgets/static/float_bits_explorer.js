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
// shows a message inside the widget. The widget's own words are English, or Chinese on a page
// that declares lang="zh-CN" (WORDS, by ./i18n.js); format names, torch code and numbers stay as
// written. Loaded by tensorlens/widgets/float_bits_explorer.py, whose
// _esm is this file with float_bits.js inlined by tensorlens/widgets/_esm.py.
// State: the synced traits `dtype` (a format name), `text` (the number as typed) and `bits`
// (the stored pattern, a number).
//
// Stable hooks for browser tests: .tl-fb[data-state=ok|invalid][data-kind=...],
// select.tl-fb-format, input.tl-fb-input, button.tl-fb-bit[data-field=sign|exponent|mantissa]
// [data-index=i] (i = 0 is the leftmost, the sign), .tl-fb-value, .tl-fb-kind, .tl-fb-error
// (the message), .tl-fb-rounding, .tl-fb-spacing, .tl-fb-formula, .tl-fb-note, .tl-fb-code.

import {
  FORMATS, PARSE_WORDS, bias, bitString, decode, describe, explain, formatNumber, maxFinite, parseNumber, width,
} from "./float_bits.js";
import { pageLanguage } from "./i18n.js";

/**
 * The explorer's own words, by the language of the page it is drawn on (./i18n.js). Format
 * names (float16 ...), `inf`, `NaN`, numbers, 2**k and the torch code stay as written.
 */
export const WORDS = {
  en: {
    title: "Float bits: sign, exponent, mantissa",
    format: "format", number: "number",
    bitsLabel: "bits, sign first; arrows move, Space flips",
    rows: { layout: "layout", stored: "stored", formula: "formula", rounding: "rounding error",
      spacing: "spacing", torch: "torch" },
    // the kind beside the stored value
    kinds: {
      zero: "(zero)", subnormal: "(subnormal (exponent field 0: no leading 1, fixed spacing))",
      normal: "(normal)", inf: "(infinity)", nan: "(NaN (not a number))",
    },
    // the kind as the live region says it
    kindsSaid: { zero: "zero", subnormal: "subnormal", normal: "normal", inf: "inf", nan: "nan" },
    signBit: "sign bit", signWorth: "1 = negative",
    exponentBit: (i, e) => `exponent bit ${i} of ${e}`, exponentWorth: (k) => `worth 2**${k} in the field`,
    mantissaBit: (k, m) => `mantissa bit ${k} of ${m}`, mantissaWorth: (k) => `worth 2**-${k}`,
    bitLabel: (name, worth, bit) => `${name}, ${worth}: ${bit}`,
    // the labels above the groups of bits: [long, short] (the short one where the long one does not fit)
    groups: { sign: "s", exponent: ["exponent", "exp"], mantissa: ["mantissa", "man"] },
    layout: (e, b, m, hasInf) => `1 sign + ${e} exponent (bias ${b}) + ${m} mantissa bits` + (hasInf ? "" : "; no inf"),
    formulaInf: (top) => `exponent field all ones (${top}), mantissa 0: infinity`,
    formulaNan: (top, man) => `exponent field all ones (${top}), mantissa ${man}: NaN`,
    exact: "0: the number is stored exactly",
    relative: (error, rel) => `${error} (relative ${rel})`,
    byHand: "(bits set by hand)", noneNan: "none: NaN", overflow: "overflow", none: "none",
    noSpacing: "none (not a finite number)",
    spacingTo: (gap, name) => `${gap} to the next ${name} of larger magnitude`,
    invalid: (error) => `number: ${error}`,
    saturates: (x, name, max, v) => `${x} is past ${name}'s largest value, ${max}: it has no inf, and torch 2.13 ` +
      `saturates to ${v} (older versions give NaN).`,
    overflows: (x, name, max) => `Overflow: ${x} is past ${name}'s largest finite value, ${max} (by half a step or more), so it is stored as inf.`,
    nanWithInf: "NaN: exponent all ones and a mantissa that is not 0. Any arithmetic with it gives NaN.",
    nanNoInf: (name) => `NaN: ${name} has one NaN pattern per sign, all ones, and no inf.`,
    inf: "inf: exponent all ones, mantissa 0.",
    subnormal: (min, gap) => `Subnormal: below the smallest normal value, 2**${min}, the spacing stays ${gap} ` +
      "and fewer significant bits are left.",
    negativeZero: "-0.0: equal to 0.0, but 1 / -0.0 is -inf.",
    zero: "Zero: every exponent and mantissa bit is 0.",
    largestFinite: (name) => `The largest finite ${name}: one step more in the mantissa is inf.`,
    largestNoInf: (name) => `The largest ${name}: the pattern above it is NaN, and there is no inf.`,
    between: (x, name) => `${x} falls between two ${name} values; the nearer one is stored.`,
    said: (name, bits, value, kind) => `${name} ${bits} = ${value}, ${kind}`,
    parse: PARSE_WORDS.en,
  },
  zh: {
    title: "浮点位：符号位、指数、尾数",
    format: "格式", number: "数值",
    bitsLabel: "比特，符号位在前；方向键移动，空格键翻转",
    rows: { layout: "布局", stored: "存储值", formula: "公式", rounding: "舍入误差",
      spacing: "间隔", torch: "torch" },
    kinds: {
      zero: "（零）", subnormal: "（次正规数：指数字段为 0，没有前导 1，间隔固定）",
      normal: "（正规数）", inf: "（无穷大）", nan: "（NaN，非数）",
    },
    kindsSaid: { zero: "零", subnormal: "次正规数", normal: "正规数", inf: "无穷大", nan: "NaN（非数）" },
    signBit: "符号位", signWorth: "1 表示负数",
    exponentBit: (i, e) => `第 ${i} 个指数位（共 ${e} 个）`, exponentWorth: (k) => `在指数字段中的权重为 2**${k}`,
    mantissaBit: (k, m) => `第 ${k} 个尾数位（共 ${m} 个）`, mantissaWorth: (k) => `权重为 2**-${k}`,
    bitLabel: (name, worth, bit) => `${name}，${worth}，当前为 ${bit}`,
    groups: { sign: "符", exponent: ["指数", "指数"], mantissa: ["尾数", "尾数"] },
    layout: (e, b, m, hasInf) => `1 位符号位 + ${e} 位指数（偏置 ${b}）+ ${m} 位尾数` + (hasInf ? "" : "；没有 inf"),
    formulaInf: (top) => `指数字段全为 1（${top}），尾数为 0：无穷大`,
    formulaNan: (top, man) => `指数字段全为 1（${top}），尾数为 ${man}：NaN`,
    exact: "0：该数被精确存储",
    relative: (error, rel) => `${error}（相对误差 ${rel}）`,
    byHand: "（比特为手动设置）", noneNan: "无：NaN", overflow: "溢出", none: "无",
    noSpacing: "无（不是有限数）",
    spacingTo: (gap, name) => `${gap}（到下一个绝对值更大的 ${name} 值）`,
    invalid: (error) => `数值：${error}`,
    saturates: (x, name, max, v) => `${x} 超出了 ${name} 的最大值 ${max}：这种格式没有 inf，torch 2.13 ` +
      `会饱和到 ${v}（更早的版本给出 NaN）。`,
    overflows: (x, name, max) => `溢出：${x} 超出了 ${name} 的最大有限值 ${max}（超出半个间隔或更多），所以存储为 inf。`,
    nanWithInf: "NaN：指数全为 1，尾数不为 0。任何与它进行的运算都得到 NaN。",
    nanNoInf: (name) => `NaN：${name} 每种符号只有一个 NaN 比特模式，即全为 1，并且没有 inf。`,
    inf: "inf：指数全为 1，尾数为 0。",
    subnormal: (min, gap) => `次正规数：在最小正规数 2**${min} 以下，间隔保持为 ${gap}，` +
      "剩下的有效位也更少。",
    negativeZero: "-0.0：与 0.0 相等，但 1 / -0.0 是 -inf。",
    zero: "零：所有指数位和尾数位都是 0。",
    largestFinite: (name) => `最大的有限 ${name} 值：尾数再加 1 就是 inf。`,
    largestNoInf: (name) => `最大的 ${name} 值：再往上的比特模式是 NaN，并且没有 inf。`,
    between: (x, name) => `${x} 落在两个相邻的 ${name} 值之间；存储的是较近的那一个。`,
    said: (name, bits, value, kind) => `${name} ${bits} = ${value}，是${kind}`,
    parse: PARSE_WORDS.zh,
  },
};

const CJK = /[\u3000-\u9fff\uff00-\uffef]/;

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
function bitInfo(f, i, words) {
  const e = f.exponentBits;
  const m = f.mantissaBits;
  if (i === 0) return { field: "sign", name: words.signBit, worth: words.signWorth };
  if (i <= e) {
    const k = e - i;
    return { field: "exponent", name: words.exponentBit(i, e), worth: words.exponentWorth(k) };
  }
  const k = i - e;
  return { field: "mantissa", name: words.mantissaBit(k, m), worth: words.mantissaWorth(k) };
}

/** The value as sign, power of two and mantissa, with the fields filled in. */
function formula(f, d, words) {
  const m = f.mantissaBits;
  const s = `(-1)**${d.sign}`;
  if (d.kind === "nan" || d.kind === "inf") {
    const top = 2 ** f.exponentBits - 1;
    return d.kind === "inf" ? words.formulaInf(top) : words.formulaNan(top, d.mantissa);
  }
  if (d.exponent === 0) {
    return `${s} × 2**${1 - bias(f)} × (0 + ${d.mantissa}/${2 ** m})`;
  }
  return `${s} × 2**(${d.exponent} - ${bias(f)}) × (1 + ${d.mantissa}/${2 ** m})`;
}

/** "-2.44e-5 (relative -2.44e-4)" */
function errorText(error, x, words) {
  if (error === 0) return words.exact;
  const rel = error / Math.abs(x);
  return words.relative(error.toPrecision(3), rel.toPrecision(3));
}

function note(f, d, info, x, words) {
  const [maxExp, maxMan] = maxFinite(f);
  const max = decode(maxExp * 2 ** f.mantissaBits + maxMan, f).value;
  if (info && info.overflow) {
    if (!f.hasInf) return words.saturates(formatNumber(x), f.name, max, d.value);
    return words.overflows(formatNumber(x), f.name, max);
  }
  if (d.kind === "nan") return f.hasInf ? words.nanWithInf : words.nanNoInf(f.name);
  if (d.kind === "inf") return words.inf;
  if (d.kind === "subnormal") return words.subnormal(1 - bias(f), describe(d.spacing));
  if (d.kind === "zero") return d.sign ? words.negativeZero : words.zero;
  if (d.exponent === maxExp && d.mantissa === maxMan) {
    return f.hasInf ? words.largestFinite(f.name) : words.largestNoInf(f.name);
  }
  if (info && info.value !== x && Number.isFinite(x)) return words.between(formatNumber(x), f.name);
  return "";
}

/** About how wide `text` is at 11 px: 6.5 px a Latin character, 11 px a Chinese one. */
function textWidth(text) {
  return [...text].reduce((sum, ch) => sum + (CJK.test(ch) ? 11 : 6.5), 0);
}

let instances = 0;

function render({ model, el }) {
  const uid = ++instances;
  const words = WORDS[pageLanguage(el)];
  const parse = (text) => parseNumber(text, words.parse);
  const root = h("div", { class: "tl-fb", "data-state": "ok" });
  const format = h("select", { id: `tl-fb-${uid}-format`, class: "tl-fb-format" },
    Object.keys(FORMATS).map((name) => h("option", { value: name, text: name })));
  const input = h("input", {
    id: `tl-fb-${uid}-input`, class: "tl-fb-input", type: "text", spellcheck: "false", autocomplete: "off",
  });
  const message = h("div", { id: `tl-fb-${uid}-error`, class: "tl-fb-error", role: "alert" });
  input.setAttribute("aria-describedby", message.id);
  const fields = h("div", { class: "tl-fb-fields", "aria-hidden": "true" });
  const bitsRow = h("div", { class: "tl-fb-bits", role: "toolbar", "aria-label": words.bitsLabel });
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
    h("div", { class: "tl-fb-title", text: words.title }),
    h("div", { class: "tl-fb-controls" }, [
      h("span", { class: "tl-fb-field" }, [h("label", { for: format.id, text: words.format }), format]),
      h("span", { class: "tl-fb-field" }, [h("label", { for: input.id, text: words.number }), input]),
    ]),
    message,
    h("div", { class: "tl-fb-scroll" }, [fields, bitsRow]),
    h("dl", { class: "tl-fb-readout" }, [
      ...row(words.rows.layout, layout),
      ...row(words.rows.stored, h("span", {}, [value, h("span", { text: " " }), kind])),
      ...row(words.rows.formula, formulaEl),
      ...row(words.rows.rounding, rounding),
      ...row(words.rows.spacing, spacing),
      ...row(words.rows.torch, codeEl),
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
      const info = bitInfo(f, i, words);
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
    // The long label where it fits above its bits (textWidth: at 11 px).
    const label = (count, [long, short]) => (textWidth(long) <= count * 21 ? long : short);
    fields.replaceChildren(
      span("sign", 1, words.groups.sign),
      span("exponent", f.exponentBits, label(f.exponentBits, words.groups.exponent)),
      span("mantissa", f.mantissaBits, label(f.mantissaBits, words.groups.mantissa)),
    );
    layout.textContent = words.layout(f.exponentBits, bias(f), f.mantissaBits, f.hasInf);
  }

  format.addEventListener("change", () => {
    const state = readState(model);
    const f = FORMATS[format.value];
    const parsed = parse(state.text);
    // Keep the number the reader typed; if it is not a number, carry over the stored value.
    const x = parsed.ok ? parsed.value : decode(state.bits, state.f).value;
    save({ dtype: f.name, bits: explain(x, f).bits, ...(parsed.ok ? {} : { text: formatNumber(x) }) });
  });
  input.addEventListener("input", () => {
    const { f } = readState(model);
    const parsed = parse(input.value);
    save(parsed.ok ? { text: input.value, bits: explain(parsed.value, f).bits } : { text: input.value });
  });

  function update() {
    const { f, text, bits } = readState(model);
    if (built !== f.name) buildBits(f);
    if (format.value !== f.name) format.value = f.name;
    if (input.value !== text) input.value = text;
    const d = decode(bits, f);
    const parsed = parse(text);
    root.dataset.state = parsed.ok ? "ok" : "invalid";
    root.dataset.kind = d.kind;
    input.setAttribute("aria-invalid", String(!parsed.ok));
    message.textContent = parsed.ok ? "" : words.invalid(parsed.error);
    // What the typed number gives, when the bits still are what it stores.
    const typed = parsed.ok ? parsed.value : null;
    const info = typed !== null && explain(typed, f).bits === bits ? explain(typed, f) : null;
    const pattern = bits.toString(2).padStart(width(f), "0");
    buttons.forEach((button, i) => {
      const bit = pattern[i];
      const about = bitInfo(f, i, words);
      button.textContent = bit;
      button.setAttribute("aria-pressed", String(bit === "1"));
      button.setAttribute("aria-label", words.bitLabel(about.name, about.worth, bit));
    });
    value.textContent = describe(d.value);
    kind.textContent = words.kinds[d.kind];
    formulaEl.textContent = formula(f, d, words);
    if (info === null) rounding.textContent = parsed.ok ? words.byHand : "";
    else if (info.error === null) {
      rounding.textContent = Number.isNaN(typed) || d.kind === "nan" ? words.noneNan : info.overflow ? words.overflow : words.none;
    } else rounding.textContent = errorText(info.error, typed, words);
    spacing.textContent = d.spacing === null ? words.noSpacing : words.spacingTo(describe(d.spacing), f.name);
    const shown = parsed.ok ? text.trim() : formatNumber(d.value);
    codeEl.textContent = `torch.tensor(${pyLiteral(shown)}).to(torch.${f.name})`;
    noteEl.textContent = note(f, d, info, typed, words);
    const said = parsed.ok
      ? words.said(f.name, bitString(bits, f), formatNumber(d.value), words.kindsSaid[d.kind])
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
