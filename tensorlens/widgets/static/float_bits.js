// float_bits.js -- floating-point bit patterns as pure functions (no DOM).
//
// The same arithmetic as tensorlens/float_bits.py: encode a number into the bits that
// torch.tensor(x).to(dtype) stores (x rounded to float32 first, then to the format, nearest,
// ties to even; past the largest finite value inf, or +-448 in float8_e4m3fn, which has no inf,
// as torch 2.13 does), decode bits into sign, exponent, mantissa, kind, value and spacing, and
// read what a reader types (its messages in English or Chinese: PARSE_WORDS). Patterns are
// plain numbers (at most 32 bits), handled with arithmetic, never with JS's signed 32-bit
// bitwise operators. Loaded by float_bits_explorer.js (inlined by tensorlens/widgets/_esm.py)
// and tested against torch-generated fixtures by tests/js/float_bits.test.mjs.

/** @typedef {{name: string, exponentBits: number, mantissaBits: number, hasInf: boolean}} Format */

/** @type {Record<string, Format>} */
export const FORMATS = {
  float32: { name: "float32", exponentBits: 8, mantissaBits: 23, hasInf: true },
  float16: { name: "float16", exponentBits: 5, mantissaBits: 10, hasInf: true },
  bfloat16: { name: "bfloat16", exponentBits: 8, mantissaBits: 7, hasInf: true },
  float8_e4m3fn: { name: "float8_e4m3fn", exponentBits: 4, mantissaBits: 3, hasInf: false },
  float8_e5m2: { name: "float8_e5m2", exponentBits: 5, mantissaBits: 2, hasInf: true },
};

/** The bits torch 2.13 stores for torch.tensor(float("nan")).to(dtype) (CPU). */
export const QUIET_NAN = {
  float32: 0x7fc00000, float16: 0x7e00, bfloat16: 0x7fc0, float8_e4m3fn: 0x7f, float8_e5m2: 0x7f,
};

export const width = (f) => 1 + f.exponentBits + f.mantissaBits;
export const bias = (f) => 2 ** (f.exponentBits - 1) - 1;

/** [exponent field, mantissa field] of the largest finite value. */
export function maxFinite(f) {
  const top = 2 ** f.exponentBits - 1;
  return f.hasInf ? [top - 1, 2 ** f.mantissaBits - 1] : [top, 2 ** f.mantissaBits - 2];
}

function pack(f, sign, exp, man) {
  return sign * 2 ** (width(f) - 1) + exp * 2 ** f.mantissaBits + man;
}

/** Round the double x straight to format f: its bits. */
function roundTo(x, f) {
  const m = f.mantissaBits;
  const sign = x < 0 || Object.is(x, -0) ? 1 : 0;
  const top = sign * 2 ** (width(f) - 1);
  if (Number.isNaN(x)) return QUIET_NAN[f.name] + top;
  const [maxExp, maxMan] = maxFinite(f);
  const saturated = pack(f, sign, maxExp, maxMan);
  const inf = pack(f, sign, 2 ** f.exponentBits - 1, 0);
  if (!Number.isFinite(x)) return f.hasInf ? inf : saturated;
  const a = Math.abs(x);
  if (a === 0) return top;
  let k = Math.floor(Math.log2(a));       // the binade: 2**k <= a < 2**(k+1)
  while (2 ** k > a) k -= 1;
  while (2 ** (k + 1) <= a) k += 1;
  const emin = 1 - bias(f);
  const q = Math.max(k, emin) - m;        // the value of one mantissa unit
  const scaled = a * 2 ** -q;             // exact: a power-of-two scaling to below 2**(m+1)
  let n = Math.floor(scaled);
  const rest = scaled - n;
  if (rest > 0.5 || (rest === 0.5 && n % 2 === 1)) n += 1;
  if (n === 0) return top;
  if (n < 2 ** m) return top + n;         // subnormal
  let exp = q + m;
  if (n === 2 ** (m + 1)) {
    n = 2 ** m;
    exp += 1;
  }
  const field = exp + bias(f);
  const man = n - 2 ** m;
  if (field > maxExp || (field === maxExp && man > maxMan)) return f.hasInf ? inf : saturated;
  return top + field * 2 ** m + man;
}

/** The value of pattern bits in format f (a double, exact). */
export function decodeValue(bits, f) {
  const m = f.mantissaBits;
  const half = 2 ** (width(f) - 1);
  const sign = bits >= half ? -1 : 1;
  const rest = bits % half;
  const exp = Math.floor(rest / 2 ** m);
  const man = rest % 2 ** m;
  const top = 2 ** f.exponentBits - 1;
  if (exp === top && (f.hasInf || man === 2 ** m - 1)) {
    return man === 0 && f.hasInf ? sign * Infinity : NaN;
  }
  if (exp === 0) return sign * man * 2 ** (1 - bias(f) - m);
  return sign * (2 ** m + man) * 2 ** (exp - bias(f) - m);
}

/** The bits torch.tensor(x).to(dtype) stores: x rounded to float32, then to the format. */
export function encode(x, f) {
  return roundTo(Math.fround(x), f);
}

/**
 * Fields, kind, value and spacing (gap to the next value of larger magnitude; at the largest
 * finite value, the gap a next step would have; null for inf and NaN).
 */
export function decode(bits, f) {
  const m = f.mantissaBits;
  const half = 2 ** (width(f) - 1);
  const sign = bits >= half ? 1 : 0;
  const rest = bits % half;
  const exponent = Math.floor(rest / 2 ** m);
  const mantissa = rest % 2 ** m;
  const value = decodeValue(bits, f);
  let kind;
  if (Number.isNaN(value)) kind = "nan";
  else if (!Number.isFinite(value)) kind = "inf";
  else if (exponent === 0) kind = mantissa === 0 ? "zero" : "subnormal";
  else kind = "normal";
  const spacing = kind === "nan" || kind === "inf" ? null : 2 ** (Math.max(exponent, 1) - bias(f) - m);
  return { sign, exponent, mantissa, kind, value, spacing };
}

/** What the explorer shows for x stored in f (the same dict as explain() in Python). */
export function explain(x, f) {
  const bits = encode(x, f);
  const d = decode(bits, f);
  const finite = Number.isFinite(x) && Number.isFinite(d.value);
  const [maxExp, maxMan] = maxFinite(f);
  const biggest = decode(pack(f, 0, maxExp, maxMan), f);
  const overflow = !Number.isNaN(x) && Math.abs(Math.fround(x)) >= biggest.value + biggest.spacing / 2 &&
    !(f.hasInf && !Number.isFinite(x));
  return { bits, kind: d.kind, value: d.value, spacing: d.spacing, error: finite ? d.value - x : null, overflow };
}

/** "1 10001 1001000000": the fields, space-separated. */
export function bitString(bits, f) {
  const text = bits.toString(2).padStart(width(f), "0");
  return `${text[0]} ${text.slice(1, 1 + f.exponentBits)} ${text.slice(1 + f.exponentBits)}`;
}

const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const POWER = /^([+-]?)2\s*\*\*\s*\(?\s*([+-]?\d+)\s*\)?$/;
const SPECIAL = /^([+-]?)(inf|infinity|nan)$/i;

/**
 * What parseNumber says about text that is not a number, by language (the explorer's WORDS carry
 * these as their `parse` table; the English ones are tensorlens.float_bits.parse_number's).
 */
export const PARSE_WORDS = {
  en: {
    notText: "a number must be text",
    empty: "empty: type a number such as 0.1, -6.25, 1e-8, 2**-24 or inf",
    notNumber: (typed) => `"${typed}" is not a number: try 0.1, -6.25, 1e-8, 2**-24 or inf`,
  },
  zh: {
    notText: "数值必须是文本",
    empty: "为空：请输入一个数，例如 0.1、-6.25、1e-8、2**-24 或 inf",
    notNumber: (typed) => `“${typed}”不是一个数：试试 0.1、-6.25、1e-8、2**-24 或 inf`,
  },
};

/**
 * A number as a reader types it: a decimal, inf/infinity/nan with a sign, or 2**k. The message
 * of a failure is in `words` (a PARSE_WORDS table; English by default).
 * @returns {{ok: true, value: number} | {ok: false, error: string}}
 */
export function parseNumber(text, words = PARSE_WORDS.en) {
  if (typeof text !== "string") return { ok: false, error: words.notText };
  const body = text.trim().replaceAll("_", "");
  if (body === "") return { ok: false, error: words.empty };
  if (DECIMAL.test(body)) return { ok: true, value: Number(body) };
  let match = POWER.exec(body);
  if (match) {
    const k = Number(match[2]);
    const value = k > 1100 ? Infinity : k > -1075 ? 2 ** k : 0;
    return { ok: true, value: match[1] === "-" ? -value : value };
  }
  match = SPECIAL.exec(body);
  if (match) {
    const value = match[2].toLowerCase() === "nan" ? NaN : Infinity;
    return { ok: true, value: match[1] === "-" ? -value : value };
  }
  return { ok: false, error: words.notNumber(text.trim()) };
}

/** A value as the explorer writes it back into its input: parseNumber reads it exactly. */
export function formatNumber(v) {
  if (Number.isNaN(v)) return "nan";
  if (!Number.isFinite(v)) return v > 0 ? "inf" : "-inf";
  if (Object.is(v, -0)) return "-0.0";
  return String(v);
}

/** "2**-24" for a power of two (an exponent with |k| >= 8), else the value's shortest text. */
export function describe(v) {
  if (Number.isFinite(v) && v !== 0) {
    const k = Math.log2(Math.abs(v));
    if (Number.isInteger(k) && Math.abs(k) >= 8) return `${v < 0 ? "-" : ""}2**${k} = ${formatNumber(v)}`;
  }
  return formatNumber(v);
}
