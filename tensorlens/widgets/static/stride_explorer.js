// stride_explorer.js -- the StrideExplorer widget: a tensor's logical view drawn above its storage.
//
// Draws the logical elements (1-D row, 2-D grid, 3-D+ as a stack of 2-D slices) above the flat
// storage strip, each storage cell and every element that reads it in the same colour. Pointing
// at an element shows `offset + sum(index * stride) = position`; pointing at a storage cell
// highlights every element that reads it. The keyboard does the same: each drawing has one
// focusable cell (Tab to it, arrow keys move it), and focus on a cell explains it as pointing does;
// each cell's accessible name says what it is ("element [1, 2], storage 6"). Buttons apply view
// operations in the browser (no kernel needed) and write the chosen ops back to the model; a polite
// live region then says the new expression with its shape, stride and offset. Colours come from
// frame.css (light or dark, following the page) and each cell's text is black or white, whichever
// contrasts more with the cell's colour; the widget redraws when the page's theme changes. The storage strip shows the whole storage
// when it fits under max_elements, else only the span the view reads (storageWindow), each cell
// labelled with its true storage position.
// Loaded by tensorlens/widgets/stride_explorer.py (anywidget), which inlines ./view_math.js through
// tensorlens/widgets/_esm.py; the browser tests and scripts/bench_stride_explorer.py find things by
// class and data attributes: button[data-op], input[data-arg], .tl-shape, .tl-stride, ...
// Its own words (WORDS) are English, or Chinese on a page that declares lang="zh-CN" (./i18n.js);
// the names of operations and arguments, Python expressions and torch's own error text are not
// translated.
import { pageLanguage } from "./i18n.js";
import {
  MESSAGES,
  applyOp,
  capNotice,
  fmtInt,
  isContiguous,
  makeView,
  messageIn,
  numel,
  overlapFastPath,
  pyTuple,
  pythonExpression,
  readersPerCell,
  storageIndices,
  storageWindow,
  unravel,
  wrapDim,
} from "./view_math.js";

// ---- the operation palette ---------------------------------------------------------------------
// Each op: its argument inputs (name, default text, kind) and how they become the recorded args.
// Defaults given as functions follow the current view (e.g. permute reverses its dims). Each op's
// tooltip is WORDS[lang].opTitles[op].

const reversedDims = (v) => v.shape.map((_, d) => v.shape.length - 1 - d).join(", ");
export const OPS = [
  { op: "t", args: [] },
  { op: "transpose", args: [["dim0", "0"], ["dim1", "1"]] },
  { op: "permute", args: [["dims", reversedDims, "list"]] },
  { op: "unsqueeze", args: [["dim", "0"]] },
  { op: "squeeze", args: [["dim", "", "optional"]] },
  { op: "expand", args: [["sizes", (v) => ["2", ...v.shape].join(", "), "list"]] },
  { op: "slice", args: [["dim", "-1"], ["start", "", "optional"], ["stop", "", "optional"], ["step", "2"]] },
  { op: "narrow", args: [["dim", "0"], ["start", "0"], ["length", "1"]] },
  { op: "select", args: [["dim", "0"], ["index", "0"]] },
  { op: "diagonal", args: [["offset", "0"], ["dim1", "0"], ["dim2", "1"]] },
  { op: "unfold", args: [["dimension", "-1"], ["size", "2"], ["step", "1"]] },
  { op: "view", args: [["shape", "-1", "list"]] },
];

// ---- the widget's words --------------------------------------------------------------------------
// By the language of the page it is drawn on (./i18n.js): the same keys in both, functions with the
// same arguments (tests/js/i18n.test.mjs). `errors` holds the messages of view_math.js (MESSAGES)
// and the widget's own: an error is said again from its key and args (messageIn). Numbers come in
// as numbers (formatted here with fmtInt) or as formatted strings (tuples, indices, expressions).

const plural = (n, word) => `${fmtInt(n)} ${word}${n === 1 ? "" : "s"}`;

export const WORDS = {
  en: {
    shape: "shape", stride: "stride", offset: "offset", contiguous: "contiguous", overlap: "overlap",
    dtype: "dtype",
    shapeTip: "size of each dim", strideTip: "storage steps per dim",
    offsetTip: "storage position of the first element",
    contiguousTip: "row-major with no gaps (is_contiguous)",
    overlapTip: "two elements read the same storage cell", dtypeTip: "element type",
    yes: "yes", no: "no", notChecked: "not checked",
    undoTip: "take back the last operation", resetTip: "back to the tensor as given",
    opTitles: {
      t: "swap the two dims of a 2-D view",
      transpose: "swap two dims",
      permute: "reorder all dims",
      unsqueeze: "insert a dim of size 1",
      squeeze: "drop dims of size 1 (all, or the one given)",
      expand: "stretch size-1 dims with stride 0",
      slice: "x[:, start:stop:step] on one dim",
      narrow: "length elements from start along dim",
      select: "one index along dim, dropping the dim",
      diagonal: "the diagonal of two dims",
      unfold: "sliding windows along a dim",
      view: "a new shape over the same storage, when strides allow",
    },
    argLabel: (op, name) => `${op} ${name}`,
    cell: "cell",
    keys: "Keyboard: Tab to a drawing, then the arrow keys (Home, End) move between its cells.",
    hint: "Point at an element to see where it lives in storage, or at a storage cell to see who reads it.",
    logical0d: "logical view: a 0-dim tensor (one element)",
    logical: (shape, n) => `logical view ${shape}: ${plural(n, "element")}`,
    storageAll: (size) => `storage: ${plural(size, "cell")}`,
    storageNone: (size) => `storage: ${fmtInt(size)} cells, none read, none shown`,
    storageSpan: (start, last, size) =>
      `storage: cells ${fmtInt(start)} to ${fmtInt(last)} of ${fmtInt(size)} shown (the span this view reads)`,
    storageRead: (cells, read) => `${cells}, ${fmtInt(read)} read by this view`,
    greyNotRead: " (grey cells are not read)",
    elementName: (index, pos) => `element [${index}], storage ${pos}`,
    storageName: (pos, count) => `storage ${pos}, ${count === 0 ? "not read" : `read by ${count} element${count === 1 ? "" : "s"}`}`,
    reads: (at, pos) => `${at} reads storage[${pos}]`,
    formulaLabel: "  offset + Σ index·stride:  ",
    value: (text) => `  value ${text}`,
    notRead: (pos) => `storage[${pos}] is not read by this view`,
    readBy: (pos, count, shown) => `storage[${pos}] is read by ${plural(count, "element")}: ${shown}`,
    announce: (expr, shape, stride, offset) => `${expr}: shape ${shape}, stride ${stride}, offset ${offset}`,
    tooBig: ", too big to draw",
    broken: (message) => `could not draw this view: ${message}`,
    errors: { ...MESSAGES.en, argNotInt: (name, text) => `${name} must be an int, not '${text}'` },
  },
  zh: {
    shape: "形状", stride: "步幅", offset: "偏移", contiguous: "连续", overlap: "重叠",
    dtype: "dtype",
    shapeTip: "每个维度的大小", strideTip: "每个维度前进一步时在存储中跨过的元素数",
    offsetTip: "第一个元素在存储中的位置",
    contiguousTip: "按行优先顺序存放，中间没有空隙（is_contiguous）",
    overlapTip: "有两个元素读取同一个存储单元", dtypeTip: "元素类型",
    yes: "是", no: "否", notChecked: "未检查",
    undoTip: "撤销上一步操作", resetTip: "回到最初给定的张量",
    opTitles: {
      t: "交换二维视图的两个维度",
      transpose: "交换两个维度",
      permute: "重新排列所有维度",
      unsqueeze: "插入一个大小为 1 的维度",
      squeeze: "去掉大小为 1 的维度（全部去掉，或只去掉给定的那个）",
      expand: "以步幅 0 拉伸大小为 1 的维度",
      slice: "在一个维度上做 x[:, start:stop:step]",
      narrow: "沿 dim 从 start 起取 length 个元素",
      select: "沿 dim 取一个索引，并去掉这个维度",
      diagonal: "两个维度的对角线",
      unfold: "沿一个维度取滑动窗口",
      view: "在同一块存储上换一个新形状（步幅允许时）",
    },
    argLabel: (op, name) => `${op} 的参数 ${name}`,
    cell: "单元",
    keys: "键盘：用 Tab 移到一幅图上，再用方向键（以及 Home、End）在它的单元之间移动。",
    hint: "指向一个元素，查看它位于存储中的哪个位置；指向一个存储单元，查看哪些元素读取它。",
    logical0d: "逻辑视图：一个 0 维张量（只有一个元素）",
    logical: (shape, n) => `逻辑视图 ${shape}：${fmtInt(n)} 个元素`,
    storageAll: (size) => `存储：${fmtInt(size)} 个单元`,
    storageNone: (size) => `存储：共 ${fmtInt(size)} 个单元，都没有被读取，因此不显示`,
    storageSpan: (start, last, size) =>
      `存储：共 ${fmtInt(size)} 个单元，显示位置 ${fmtInt(start)} 到 ${fmtInt(last)}（这个视图读取的范围）`,
    storageRead: (cells, read) => `${cells}，其中 ${fmtInt(read)} 个被这个视图读取`,
    greyNotRead: "（灰色单元未被读取）",
    elementName: (index, pos) => `元素 [${index}]，存储位置 ${pos}`,
    storageName: (pos, count) => `存储位置 ${pos}，${count === 0 ? "未被读取" : `被 ${count} 个元素读取`}`,
    reads: (at, pos) => `${at} 读取存储位置 ${pos}`,
    formulaLabel: "  偏移 + Σ 索引·步幅：  ",
    value: (text) => `  值 ${text}`,
    notRead: (pos) => `存储位置 ${pos} 未被这个视图读取`,
    readBy: (pos, count, shown) => `存储位置 ${pos} 被 ${fmtInt(count)} 个元素读取：${shown}`,
    announce: (expr, shape, stride, offset) => `${expr}：形状 ${shape}，步幅 ${stride}，偏移 ${offset}`,
    tooBig: "，太大，无法绘制",
    broken: (message) => `无法绘制这个视图：${message}`,
    errors: { ...MESSAGES.zh, argNotInt: (name, text) => `${name} 必须是整数，而不是 '${text}'` },
  },
};

/** What ends a sentence before the next one, in the live region (not a word: kept out of WORDS). */
const FULL_STOP = { en: ". ", zh: "。" };

function parseInt1(text, name, optional) {
  const s = text.trim();
  if (s === "" && optional) return null;
  if (!/^[-+]?\d+$/.test(s)) {
    const err = new Error(WORDS.en.errors.argNotInt(name, s));
    err.key = "argNotInt";
    err.args = [name, s];
    throw err;
  }
  return Number(s);
}

function parseList(text, name) {
  const s = text.trim().replace(/^[([]|[)\]]$/g, "");
  if (s.trim() === "") return [];
  return s.split(/[\s,]+/).filter(Boolean).map((p, i) => parseInt1(p, `${name}[${i}]`, false));
}

/**
 * Recorded args for one op from its input texts; slice dims are range-checked and stored
 * non-negative (as _slice_dim does in Python). Exported for tests/js only.
 */
export function readArgs(spec, texts, v) {
  const values = spec.args.map(([name, , kind], i) =>
    kind === "list" ? parseList(texts[i], name) : parseInt1(texts[i], name, kind === "optional"),
  );
  if (spec.op === "squeeze") return values[0] === null ? [] : values;
  if (spec.op === "slice") values[0] = wrapDim(values[0], v.shape.length);
  return values;
}

// ---- colours -------------------------------------------------------------------------------------

const PALETTE = 256;
const WOBBLE = 0.08;

/** An OKLCH colour (lightness 0-1, chroma, hue in degrees) as sRGB bytes, chroma cut to fit. */
function oklchToRgb(L, C, hDeg) {
  const h = (hDeg * Math.PI) / 180;
  for (let c = C; ; c *= 0.9) {
    const a = c * Math.cos(h);
    const b = c * Math.sin(h);
    const l_ = (L + 0.3963377774 * a + 0.2158037573 * b) ** 3;
    const m_ = (L - 0.1055613458 * a - 0.0638541728 * b) ** 3;
    const s_ = (L - 0.0894841775 * a - 1.291485548 * b) ** 3;
    const lin = [
      4.0767416621 * l_ - 3.3077115913 * m_ + 0.2309699292 * s_,
      -1.2684380046 * l_ + 2.6097574011 * m_ - 0.3413193965 * s_,
      -0.0041960863 * l_ - 0.7034186147 * m_ + 1.707614701 * s_,
    ];
    if (c < 0.002 || lin.every((x) => x >= -1e-4 && x <= 1 + 1e-4)) {
      return lin.map((x) => {
        const v = Math.min(1, Math.max(0, x));
        return Math.round(255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055));
      });
    }
  }
}

/**
 * Colours by storage position: a hue ramp from red to violet at an even perceived lightness
 * (OKLCH), light on light pages and dark on dark ones. Exported for tests/js (contrast of the cell
 * text, and neighbours under colour-blind simulation).
 */
export function makePalette(dark, count) {
  const rgb = [];
  for (let i = 0; i < count; i++) {
    const frac = count === 1 ? 0 : i / (count - 1);
    // Neighbouring cells alternate lightness, so that small storages read as cells even where
    // hue alone does not tell neighbours apart (deuteranopia, protanopia: tests/js/palette.test.mjs).
    const wobble = count <= 64 ? (i % 2 ? -WOBBLE : WOBBLE) : 0;
    const hue = 25 + 280 * frac;
    const chroma = dark ? 0.09 : 0.1;
    let light = (dark ? 0.47 : 0.82) + wobble;
    let c = oklchToRgb(light, chroma, hue);
    // A lightness whose luminance sits mid-way gives neither black nor white text 4.5:1: move off
    // it, away from the neighbours' lightness.
    const step = wobble ? Math.sign(wobble) * 0.01 : dark ? -0.01 : 0.01;
    while (contrast(c, inkOn(c)) < 4.5 && light > 0.05 && light < 0.98) {
      light += step;
      c = oklchToRgb(light, chroma, hue);
    }
    rgb.push(c);
  }
  return { rgb, u32: Uint32Array.from(rgb, rgbaWord) };
}

/** WCAG relative luminance of an [r, g, b] colour (0-255 each). */
export function luminance([r, g, b]) {
  const lin = (c) => {
    const x = c / 255;
    return x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** WCAG contrast ratio of two [r, g, b] colours. */
export function contrast(a, b) {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

export const INK_DARK = [17, 24, 39];
export const INK_LIGHT = [255, 255, 255];
/** The text colour for a cell filled with rgb: near-black or white, whichever contrasts more. */
export function inkOn(rgb) {
  return contrast(rgb, INK_DARK) >= contrast(rgb, INK_LIGHT) ? INK_DARK : INK_LIGHT;
}
const cssRgb = ([r, g, b]) => `rgb(${r},${g},${b})`;
const wordRgb = (w) => [w & 255, (w >>> 8) & 255, (w >>> 16) & 255];

/** An opaque colour as one ImageData word (RGBA bytes, little-endian). */
const rgbaWord = ([r, g, b]) => ((255 << 24) | (b << 16) | (g << 8) | r) >>> 0;

/** The fill of storage cells the view does not read (exported for tests/js). */
export const UNREAD = { light: [229, 231, 235], dark: [48, 54, 61] };

/** The drawing colours for the widget root el, from the colours frame.css gave it. */
function themeOf(el) {
  const style = getComputedStyle(el);
  const m = style.color.match(/\d+(\.\d+)?/g) || ["0", "0", "0"];
  const [r, g, b] = m.map(Number);
  const dark = 0.299 * r + 0.587 * g + 0.114 * b > 140; // light text means a dark background
  const muted = style.getPropertyValue("--tl-muted").trim();
  return {
    dark,
    muted: muted || (dark ? "#9ea7b3" : "#57606a"),
    unread: dark ? UNREAD.dark : UNREAD.light,
    wash: dark ? "rgba(13,17,23,0.66)" : "rgba(255,255,255,0.66)",
    ring: dark ? "#f2cc60" : "#111827",
  };
}

/** Call onChange whenever the page's theme may have changed (book switch, JupyterLab, system). */
function watchTheme(onChange) {
  const observers = [];
  if (typeof MutationObserver !== "undefined") {
    for (const [node, attributeFilter] of [
      [document.documentElement, ["data-theme", "class"]],
      [document.body, ["data-jp-theme-light", "data-jp-theme-name", "class"]],
    ]) {
      if (!node) continue;
      const o = new MutationObserver(onChange);
      o.observe(node, { attributes: true, attributeFilter });
      observers.push(o);
    }
  }
  const media = typeof matchMedia === "function" ? matchMedia("(prefers-color-scheme: dark)") : null;
  if (media && media.addEventListener) media.addEventListener("change", onChange);
  return () => {
    for (const o of observers) o.disconnect();
    if (media && media.removeEventListener) media.removeEventListener("change", onChange);
  };
}

/**
 * The colour of every drawn storage cell (counts[i] readers of position start + i; grey when
 * none) and of every element (its cell's), as ImageData words; also whether any cell has two readers and how many are read.
 * At module level, not inside render, so the JIT keeps its optimised loops across widgets.
 */
function colourCells(indices, counts, start, theme, unread) {
  const S = counts.length;
  const nColours = Math.max(1, Math.min(PALETTE, S));
  const pal = makePalette(theme.dark, nColours).u32;
  const cellWords = new Uint32Array(S);
  let overlap = false;
  let read = 0;
  for (let pos = 0; pos < S; pos++) {
    const c = counts[pos];
    if (c === 0) {
      cellWords[pos] = unread;
      continue;
    }
    read++;
    if (c > 1) overlap = true;
    cellWords[pos] = pal[S <= PALETTE ? pos : Math.floor((pos * nColours) / S)];
  }
  const elementWords = new Uint32Array(indices.length);
  for (let k = 0; k < indices.length; k++) elementWords[k] = cellWords[indices[k] - start];
  return { cellWords, elementWords, overlap, read };
}

// ---- value formatting --------------------------------------------------------------------------

function formatValue(x, isFloat) {
  if (x === null || x === undefined) return "";
  if (typeof x !== "number") return String(x);
  if (Number.isNaN(x)) return "nan";
  if (!Number.isFinite(x)) return x > 0 ? "inf" : "-inf";
  if (Number.isInteger(x) && Math.abs(x) < 1e5) return isFloat ? `${x}.` : String(x);
  const a = Math.abs(x);
  if (a >= 1e4 || a < 1e-3) return x.toExponential(1).replace("e+", "e");
  return String(Number(x.toPrecision(3)));
}


// ---- geometry ------------------------------------------------------------------------------------
// A grid is a set of panels (2-D slices) of rows x cols cells; cell k of the drawn thing sits at
// panel p, row r, col c. Everything is in CSS pixels.

const LABEL_H = 16; // panel caption height
const PANEL_GAP = 14;

function chooseCell(count, width, area) {
  const s = Math.floor(Math.sqrt(area / Math.max(count, 1)));
  return Math.max(2, Math.min(36, s, Math.floor(width / 2)));
}

// Heights of the two scroll boxes (keep in step with .tl-box-* in stride_explorer.css): cells
// shrink until the drawing fits, down to a size still worth pointing at, then the box scrolls.
const LOGICAL_BOX_H = 316;
const STORAGE_BOX_H = 166;
const FIT_MIN_CELL = 4;

/** The largest layout (cell size) no taller than maxH, from a first guess down. */
function fit(layout, guess, maxH) {
  let g = layout(guess);
  while (g.height > maxH && g.cell > FIT_MIN_CELL) g = layout(g.cell - 1);
  return g;
}

/** Layout of the logical elements of shape in a box `width` wide. */
function logicalGeometry(shape, width) {
  const n = numel(shape);
  return fit((c) => logicalLayout(shape, width, n, c), chooseCell(n, width, width * 260), LOGICAL_BOX_H);
}

function logicalLayout(shape, width, n, cell) {
  const nd = shape.length;
  let rows;
  let cols;
  let panels = 1;
  if (nd === 0) {
    rows = 1;
    cols = 1;
  } else if (nd === 1) {
    cols = Math.max(1, Math.min(shape[0], Math.floor((width - 30) / cell)));
    rows = Math.ceil(shape[0] / cols);
  } else {
    rows = shape[nd - 2];
    cols = shape[nd - 1];
    panels = numel(shape.slice(0, nd - 2));
    if (cols * cell > width - 30) cell = Math.max(2, Math.floor((width - 30) / Math.max(cols, 1)));
  }
  const axes = cell >= 16 && nd > 0; // index labels along the edges
  const left = axes ? 26 : 0;
  const top = axes ? 14 : 0;
  const caption = nd >= 3 ? LABEL_H : 0;
  const pw = left + cols * cell;
  const ph = caption + top + rows * cell;
  const perRow = Math.max(1, Math.floor((width + PANEL_GAP) / (pw + PANEL_GAP)));
  const panelCols = Math.min(perRow, panels);
  const panelRows = Math.ceil(panels / panelCols);
  return {
    kind: "logical", shape, n, nd, cell, rows, cols, panels, axes, left, top, caption, pw, ph,
    panelCols, panelRows,
    width: Math.max(1, panelCols * pw + (panelCols - 1) * PANEL_GAP),
    height: Math.max(1, panelRows * ph + (panelRows - 1) * PANEL_GAP),
  };
}

/**
 * Layout of the storage strip: `size` cells from storage position `start`, wrapping into rows,
 * each row's first position at its left and (when cells are wide enough) each cell's under it.
 */
function storageGeometry(size, width, start = 0) {
  return fit((c) => storageLayout(size, width, c, start), chooseCell(size, width, width * 110), STORAGE_BOX_H);
}

function storageLayout(size, width, cell, start) {
  const digits = String(Math.max(start + size - 1, 0)).length; // 10 px monospace: ~6.1 px each
  const left = cell >= 16 ? Math.max(34, Math.ceil(digits * 6.1) + 10) : 0;
  const cols = Math.max(1, Math.min(size, Math.floor((width - left) / cell)));
  const rows = Math.max(1, Math.ceil(size / cols));
  const under = cell >= 22 && digits * 6.1 <= cell ? 11 : 0; // room for each cell's position under it
  return {
    kind: "storage", n: size, start, cell, rows, cols, panels: 1, left, top: 0, caption: 0, under,
    pw: left + cols * cell, ph: rows * (cell + under), panelCols: 1,
    width: Math.max(1, left + cols * cell), height: Math.max(1, rows * (cell + under)),
  };
}

/** Top-left corner of cell k, in CSS px. */
function cellXY(g, k) {
  let p = 0;
  let r;
  let c;
  if (g.kind === "logical" && g.nd >= 2) {
    const per = g.rows * g.cols;
    p = Math.floor(k / per);
    const q = k - p * per;
    r = Math.floor(q / g.cols);
    c = q - r * g.cols;
  } else {
    r = Math.floor(k / g.cols);
    c = k - r * g.cols;
  }
  const px = (p % g.panelCols) * (g.pw + PANEL_GAP);
  const py = Math.floor(p / g.panelCols) * (g.ph + PANEL_GAP);
  const rowH = g.cell + (g.under || 0);
  return [px + g.left + c * g.cell, py + g.caption + g.top + r * rowH];
}

/** Cell under a point, or -1. */
function cellAt(g, x, y) {
  const pc = Math.floor(x / (g.pw + PANEL_GAP));
  const pr = Math.floor(y / (g.ph + PANEL_GAP));
  if (pc < 0 || pr < 0 || pc >= g.panelCols) return -1;
  const p = pr * g.panelCols + pc;
  if (p >= g.panels) return -1;
  const lx = x - pc * (g.pw + PANEL_GAP) - g.left;
  const ly = y - pr * (g.ph + PANEL_GAP) - g.caption - g.top;
  const rowH = g.cell + (g.under || 0);
  const c = Math.floor(lx / g.cell);
  const r = Math.floor(ly / rowH);
  if (lx < 0 || ly < 0 || c >= g.cols || r >= g.rows || ly - r * rowH >= g.cell) return -1;
  const k = g.kind === "logical" && g.nd >= 2 ? p * g.rows * g.cols + r * g.cols + c : r * g.cols + c;
  return k < g.n ? k : -1;
}

// ---- drawing -----------------------------------------------------------------------------------

let scratch = null;
function scratchCanvas(w, h) {
  scratch = scratch || document.createElement("canvas");
  if (scratch.width < w || scratch.height < h) {
    scratch.width = Math.max(w, scratch.width);
    scratch.height = Math.max(h, scratch.height);
  }
  return scratch;
}

function sizeCanvas(canvas, g) {
  const dpr = window.devicePixelRatio || 1;
  canvas.style.width = `${g.width}px`;
  canvas.style.height = `${g.height}px`;
  const w = Math.round(g.width * dpr);
  const h = Math.round(g.height * dpr);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;
    canvas.height = h;
  }
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return { ctx, dpr };
}

/**
 * Draw every cell of a grid in one pass. words[k] is cell k's colour as an RGBA word (see
 * makePalette), unread marks the cells drawn as "not read"; textOf(k) is the label, used only
 * when cells are big enough to hold text, and badgeOf(k) (optional) a note drawn above it.
 */
function drawGrid(canvas, g, words, unread, textOf, theme, captions, badgeOf = null) {
  const { ctx, dpr } = sizeCanvas(canvas, g);
  ctx.clearRect(0, 0, g.width, g.height);
  const gap = g.cell >= 6 ? 1 : 0;
  if (g.n === 0) {
    // An empty view: nothing to draw but its captions.
  } else if (g.cell < 12) {
    // Small cells: one pixel per cell in an offscreen image, scaled up without smoothing, then
    // the 1 px gaps cut out. Far faster than a fillRect (or a pixel loop) per cell.
    const per = g.rows * g.cols;
    const img = new ImageData(g.cols, g.rows * g.panels);
    new Uint32Array(img.data.buffer).set(words);
    const src = scratchCanvas(g.cols, g.rows * g.panels);
    src.getContext("2d").putImageData(img, 0, 0);
    ctx.imageSmoothingEnabled = false;
    for (let p = 0; p < g.panels; p++) {
      const [x, y] = cellXY(g, p * per);
      // The last row of a wrapped 1-D strip may be partial: its missing cells stay transparent.
      ctx.drawImage(src, 0, p * g.rows, g.cols, g.rows, x, y, g.cols * g.cell, g.rows * g.cell);
      if (gap) {
        for (let c = 1; c <= g.cols; c++) ctx.clearRect(x + c * g.cell - gap, y, gap, g.rows * g.cell);
        for (let r = 1; r <= g.rows; r++) ctx.clearRect(x, y + r * g.cell - gap, g.cols * g.cell, gap);
      }
    }
  } else {
    const css = new Map();
    const cssOf = (w) => css.get(w) || css.set(w, cssRgb(wordRgb(w))).get(w);
    const ink = new Map();
    const inkOf = (w) => ink.get(w) || ink.set(w, cssRgb(inkOn(wordRgb(w)))).get(w);
    const s = g.cell - gap;
    const font = g.cell >= 30 ? 11 : 9;
    const withText = g.cell >= 22;
    ctx.font = `${font}px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace`;
    ctx.textAlign = "center";
    ctx.textBaseline = "middle";
    for (let k = 0; k < g.n; k++) {
      const [x, y] = cellXY(g, k);
      ctx.fillStyle = cssOf(words[k]);
      ctx.fillRect(x, y, s, s);
      if (withText) {
        const text = textOf(k);
        const badge = badgeOf && badgeOf(k);
        ctx.fillStyle = inkOf(words[k]);
        if (badge) {
          ctx.font = `bold ${font - 2}px system-ui, sans-serif`;
          ctx.fillText(badge, x + s / 2, y + s * 0.27);
          ctx.font = `${font}px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace`;
        }
        const size = text ? labelSize(ctx.measureText(text).width, font, s - 3) : 0;
        if (size) {
          // A label too wide for its cell is drawn smaller (down to MIN_LABEL_PX), not dropped.
          if (size !== font) ctx.font = `${size}px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace`;
          ctx.fillText(text, x + s / 2, y + (badge ? s * 0.66 : s / 2 + 0.5));
          if (size !== font) ctx.font = `${font}px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace`;
        }
      }
    }
  }
  drawLabels(ctx, g, theme, captions);
}

const MIN_LABEL_PX = 7;

/**
 * The font size, in px, at which a label `width` px wide at `font` px fits `room` px: `font`
 * when it fits, else the largest smaller size down to MIN_LABEL_PX, else 0 (too long to draw).
 * So a value such as "-0.575" shrinks to fit its cell instead of vanishing from it.
 */
export function labelSize(width, font, room) {
  if (!(width > 0)) return 0;
  if (width <= room) return font;
  const size = Math.floor((font * room) / width);
  return size >= MIN_LABEL_PX ? size : 0;
}

/** Index labels along the edges, panel captions, storage positions. */
function drawLabels(ctx, g, theme, captions) {
  ctx.fillStyle = theme.muted;
  ctx.font = "10px ui-monospace, SFMono-Regular, Menlo, Consolas, monospace";
  ctx.textBaseline = "middle";
  for (let p = 0; p < g.panels; p++) {
    const px = (p % g.panelCols) * (g.pw + PANEL_GAP);
    const py = Math.floor(p / g.panelCols) * (g.ph + PANEL_GAP);
    if (g.caption) {
      ctx.textAlign = "left";
      ctx.fillText(captions(p), px + g.left, py + LABEL_H / 2);
    }
    if (g.kind === "storage") {
      const rowH = g.cell + g.under;
      for (let r = 0; r < g.rows; r++) {
        if (g.left) {
          ctx.textAlign = "right";
          ctx.fillText(String(g.start + r * g.cols), g.left - 6, r * rowH + g.cell / 2);
        }
        if (g.under) {
          ctx.textAlign = "center";
          for (let c = 0; c < g.cols && r * g.cols + c < g.n; c++) {
            ctx.fillText(String(g.start + r * g.cols + c), g.left + c * g.cell + (g.cell - 1) / 2, r * rowH + g.cell + 5);
          }
        }
      }
    } else if (g.axes) {
      const y0 = py + g.caption + g.top;
      ctx.textAlign = "right";
      const rowStep = g.nd === 1 ? g.cols : 1;
      for (let r = 0; r < g.rows; r++) ctx.fillText(String(r * rowStep), px + g.left - 6, y0 + r * g.cell + g.cell / 2);
      if (g.nd >= 1) {
        ctx.textAlign = "center";
        for (let c = 0; c < g.cols; c++) ctx.fillText(String(c), px + g.left + c * g.cell + (g.cell - 1) / 2, y0 - 7);
      }
    }
  }
}

// ---- the widget ----------------------------------------------------------------------------------

function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "class") node.className = v;
    else if (k === "text") node.textContent = v;
    else node.setAttribute(k, v);
  }
  for (const c of children) node.append(c);
  return node;
}

/** Widen an argument box to its text, so a default such as "2, 2, 3, 4" is never cut off. */
function fitToText(input) {
  const least = input.classList.contains("tl-arg-list") ? 8 : 2.6;
  input.style.width = `${Math.max(least, input.value.length + 1)}ch`;
}

function chip(key, cls, title) {
  const value = h("code", { class: cls });
  return [h("span", { class: "tl-chip", title }, h("span", { class: "tl-k", text: key }), value), value];
}

function render({ model, el }) {
  const lang = pageLanguage(el);
  const words = WORDS[lang];
  const say = (err) => messageIn(err, words.errors);
  const root = h("div", { class: "tl-se" });
  el.replaceChildren(root);

  // Header: the expression and the facts about the current view.
  const expr = h("code", { class: "tl-expr" });
  const facts = h("div", { class: "tl-facts" });
  const [shapeChip, shapeEl] = chip(words.shape, "tl-shape", words.shapeTip);
  const [strideChip, strideEl] = chip(words.stride, "tl-stride", words.strideTip);
  const [offsetChip, offsetEl] = chip(words.offset, "tl-offset", words.offsetTip);
  const [contChip, contEl] = chip(words.contiguous, "tl-contiguous", words.contiguousTip);
  const [overChip, overEl] = chip(words.overlap, "tl-overlap", words.overlapTip);
  const [dtypeChip, dtypeEl] = chip(words.dtype, "tl-dtype", words.dtypeTip);
  facts.append(shapeChip, strideChip, offsetChip, contChip, overChip, dtypeChip);
  const undoBtn = h("button", { type: "button", class: "tl-action", "data-op": "undo", text: "undo", title: words.undoTip });
  const resetBtn = h("button", { type: "button", class: "tl-action", "data-op": "reset", text: "reset", title: words.resetTip });
  const actions = h("span", { class: "tl-actions" }, undoBtn, resetBtn);
  root.append(h("div", { class: "tl-head" }, h("div", { class: "tl-title" }, expr, actions), facts));

  // Controls: one chip per op, looking like the Python call it makes.
  const controls = h("div", { class: "tl-controls" });
  const inputsOf = new Map();
  for (const spec of OPS) {
    const group = h("span", { class: "tl-op", "data-op-group": spec.op, title: words.opTitles[spec.op] });
    const label = spec.op === "slice" ? "slice" : spec.op === "t" ? ".t()" : `.${spec.op}`;
    const button = h("button", {
      type: "button", class: `tl-op-btn${spec.args.length ? "" : " tl-op-bare"}`, "data-op": spec.op, text: label,
    });
    group.append(button);
    const inputs = [];
    if (spec.args.length) group.append(h("span", { class: "tl-punct", text: spec.op === "slice" ? "dim" : "(" }));
    spec.args.forEach(([name, dflt, kind], i) => {
      if (spec.op === "slice" && i === 1) group.append(h("span", { class: "tl-punct", text: " [" }));
      else if (i > 0) group.append(h("span", { class: "tl-punct", text: spec.op === "slice" ? ":" : ", " }));
      const input = h("input", {
        type: "text", class: `tl-arg${kind === "list" ? " tl-arg-list" : ""}`,
        "data-arg": name, "aria-label": words.argLabel(spec.op, name), placeholder: kind === "optional" ? "·" : name,
        spellcheck: "false", autocomplete: "off",
      });
      input.value = typeof dflt === "function" ? "" : dflt;
      fitToText(input);
      input.addEventListener("input", () => fitToText(input));
      input.addEventListener("keydown", (e) => {
        if (e.key === "Enter") apply(spec);
      });
      inputs.push(input);
      group.append(input);
    });
    if (spec.args.length) group.append(h("span", { class: "tl-punct", text: spec.op === "slice" ? "]" : ")" }));
    button.addEventListener("click", () => apply(spec));
    inputsOf.set(spec.op, inputs);
    controls.append(group);
  }
  root.append(controls);

  const errorBox = h("div", { class: "tl-error", role: "alert" });
  const notice = h("div", { class: "tl-cap", role: "status" });
  // What pointing (or the keyboard's cell) explains; the keyboard's moves are also said in `live`.
  const readout = h("div", { class: "tl-readout" });
  // Says what changed after an operation (and what a keyboard move landed on), politely.
  const live = h("div", { class: "tl-sr-only tl-live", role: "status", "aria-live": "polite" });
  root.append(errorBox, notice, readout, live);

  // The stage: logical view above the storage strip, each in its own scroll box. Each drawing has
  // one focusable cell for the keyboard (see the header).
  const mkLayer = (cls, kind) => {
    const base = h("canvas", { class: `${cls} tl-canvas`, role: "img" });
    const over = h("canvas", { class: "tl-overlay" });
    const cursor = h("div", {
      class: "tl-cursor", tabindex: "0", role: "img", "aria-roledescription": words.cell, "data-kind": kind,
    });
    const wrap = h("div", { class: "tl-layer" }, base, over, cursor);
    return { base, over, cursor, wrap, kind, at: 0 };
  };
  const logical = mkLayer("tl-logical", "logical");
  const storage = mkLayer("tl-storage", "storage");
  const logicalTitle = h("div", { class: "tl-section" });
  const storageTitle = h("div", { class: "tl-section" });
  const logicalBox = h("div", { class: "tl-box tl-box-logical" }, logical.wrap);
  const storageBox = h("div", { class: "tl-box tl-box-storage" }, storage.wrap);
  const keys = h("div", { class: "tl-keys", text: words.keys });
  const stage = h("div", { class: "tl-stage" }, logicalTitle, logicalBox, storageTitle, storageBox, keys);
  root.append(stage);

  // State: the base view from the model, the ops applied to it, and what was computed from them.
  let base = null;
  let ops = [];
  let cur = null;
  let drawn = null; // {v, indices, counts, lg, sg, theme, textOfPos} of the last draw, for pointing
  const hint = words.hint;

  function readBase() {
    base = makeView(model.get("shape"), model.get("stride"), model.get("offset"), model.get("storage_size"));
  }

  function replay(list) {
    let v = base;
    for (const [op, args] of list) v = applyOp(v, op, args);
    return v;
  }

  function save(message) {
    model.set("ops", ops.map(([op, args]) => [op, args.slice()]));
    model.set("expression", pythonExpression(model.get("label"), ops));
    model.set("error", message);
    model.save_changes();
  }

  function apply(spec) {
    if (!cur) return;
    try {
      const texts = inputsOf.get(spec.op).map((i) => i.value);
      const args = readArgs(spec, texts, cur);
      const next = applyOp(cur, spec.op, args);
      ops = ops.concat([[spec.op, args]]);
      cur = next;
      showError("");
      save("");
      update();
      announce();
    } catch (err) {
      showError(`${spec.op}: ${say(err)}`);
      save(errorBox.textContent);
    }
  }

  /** Say the current expression and its shape, stride and offset in the live region. */
  function announce() {
    if (!cur) return;
    live.textContent = words.announce(expr.textContent, pyTuple(cur.shape), pyTuple(cur.stride), cur.offset) +
      (root.dataset.capped === "true" ? words.tooBig : "");
  }

  /** A button that disables itself would drop the keyboard's focus: hand it to the first op. */
  function keepFocus(button) {
    const active = document.activeElement;
    if (button.disabled && (active === button || !root.contains(active))) {
      const first = controls.querySelector("button");
      if (first) first.focus();
    }
  }

  function showError(message) {
    errorBox.textContent = message;
    errorBox.hidden = !message;
  }

  undoBtn.addEventListener("click", () => {
    if (!ops.length || !base) return;
    ops = ops.slice(0, -1);
    cur = replay(ops);
    showError("");
    save("");
    update();
    announce();
    keepFocus(undoBtn);
  });
  resetBtn.addEventListener("click", () => {
    if (!base) return;
    ops = [];
    cur = base;
    showError("");
    save("");
    update();
    announce();
    keepFocus(resetBtn);
  });

  /** Everything from the model, e.g. on first render or when Python changes the tensor. */
  function load() {
    try {
      readBase();
    } catch (err) {
      base = cur = null;
      showError(say(err));
      clearStage();
      return;
    }
    ops = model.get("ops") || [];
    try {
      cur = replay(ops);
      showError(model.get("error") || "");
    } catch (err) {
      // Ops recorded elsewhere that no longer apply: keep the base, say why.
      ops = [];
      cur = base;
      showError(say(err));
    }
    update();
  }

  function clearStage() {
    drawn = null;
    stage.hidden = true;
    for (const e of [shapeEl, strideEl, offsetEl, contEl, overEl]) e.textContent = "?";
  }

  function update() {
    const v = cur;
    const n = numel(v.shape);
    const cap = model.get("max_elements");
    const label = model.get("label");
    expr.textContent = pythonExpression(label, ops);
    shapeEl.textContent = pyTuple(v.shape);
    strideEl.textContent = pyTuple(v.stride);
    offsetEl.textContent = String(v.offset);
    const contiguous = isContiguous(v);
    contEl.textContent = contiguous ? words.yes : words.no;
    contEl.dataset.value = String(contiguous);
    const dtype = model.get("dtype");
    dtypeChip.hidden = !dtype;
    dtypeEl.textContent = dtype || "";
    undoBtn.disabled = ops.length === 0;
    resetBtn.disabled = ops.length === 0;
    root.dataset.numel = String(n);
    root.dataset.ops = String(ops.length);
    for (const spec of OPS) {
      spec.args.forEach(([, dflt], i) => {
        if (typeof dflt === "function") {
          const input = inputsOf.get(spec.op)[i];
          input.value = dflt(v);
          fitToText(input);
        }
      });
    }
    const why = capNotice(v, cap, words.errors);
    if (why) {
      // Too big to draw at interactive speed: say so, and keep the controls usable.
      const quick = overlapFastPath(v);
      overEl.textContent = quick === null ? words.notChecked : quick ? words.yes : words.no;
      overEl.dataset.value = quick === null ? "unknown" : String(quick);
      notice.textContent = why;
      notice.hidden = false;
      root.dataset.capped = "true";
      drawn = null;
      stage.hidden = true;
      readout.textContent = "";
      return;
    }
    notice.hidden = true;
    root.dataset.capped = "false";
    stage.hidden = false;
    try {
      draw(v);
    } catch (err) {
      // Never a broken widget: whatever went wrong is said in it.
      drawn = null;
      stage.hidden = true;
      showError(words.broken(say(err)));
    }
  }

  function draw(v) {
    const theme = themeOf(root);
    root.dataset.theme = theme.dark ? "dark" : "light";
    const cap = model.get("max_elements");
    // Only the window of storage is drawn (all of it unless it is over the cap); `start` is the
    // storage position of its first cell, and every position below is a true storage position.
    const { start, stop } = storageWindow(v, cap);
    const indices = storageIndices(v);
    const counts = readersPerCell(v, indices, start, stop);
    const S = v.storageSize;
    const W = stop - start;
    const unread = rgbaWord(theme.unread);
    const { cellWords, elementWords, overlap, read } = colourCells(indices, counts, start, theme, unread);
    overEl.textContent = overlap ? words.yes : words.no;
    overEl.dataset.value = String(overlap);
    const n = indices.length;
    const values = model.get("storage");
    const dtype = model.get("dtype") || "";
    const isFloat = /float|half|bfloat/.test(dtype);
    // The values are those of the base view's window, which holds every derived view's window.
    const first = values ? storageWindow(base, cap).start : 0;
    const textOfPos = values ? (pos) => formatValue(values[pos - first], isFloat) : (pos) => String(pos);

    const width = Math.max(240, (stage.clientWidth || el.clientWidth || 680) - 24);
    const lg = logicalGeometry(v.shape, width);
    const sg = storageGeometry(W, width, start);
    const lead = v.shape.slice(0, -2);
    drawGrid(logical.base, lg, elementWords, unread, (k) => textOfPos(indices[k]), theme,
      (p) => `[${unravel(lead, p).join(", ")}, :, :]`);
    drawGrid(storage.base, sg, cellWords, unread, (i) => textOfPos(start + i), theme, () => "",
      overlap ? (i) => (counts[i] > 1 ? `×${counts[i]}` : "") : null);
    for (const [layer, g] of [[logical, lg], [storage, sg]]) {
      const { ctx } = sizeCanvas(layer.over, g);
      ctx.clearRect(0, 0, g.width, g.height);
    }
    logicalTitle.textContent = v.shape.length === 0 ? words.logical0d : words.logical(pyTuple(v.shape), n);
    const cells = W === S
      ? words.storageAll(S)
      : W === 0
        ? words.storageNone(S)
        : words.storageSpan(start, stop - 1, S);
    storageTitle.textContent = words.storageRead(cells, read) + (W > read ? words.greyNotRead : "");
    storageTitle.dataset.start = String(start);
    storageTitle.dataset.stop = String(stop);
    logical.base.setAttribute("aria-label", logicalTitle.textContent);
    storage.base.setAttribute("aria-label", storageTitle.textContent);
    drawn = { v, indices, counts, start, lg, sg, theme, textOfPos };
    readout.replaceChildren(h("span", { class: "tl-hint", text: hint }));
    for (const layer of [logical, storage]) placeCursor(layer, Math.min(layer.at, cellCount(layer) - 1));
  }

  // ---- the keyboard's cells --------------------------------------------------------------------

  const cellCount = (layer) => (!drawn ? 0 : layer.kind === "logical" ? drawn.indices.length : drawn.sg.n);
  const layerGeometry = (layer) => (layer.kind === "logical" ? drawn.lg : drawn.sg);

  /** The accessible name of cell k of a drawing. */
  function cellName(layer, k) {
    const d = drawn;
    if (layer.kind === "logical") {
      const index = unravel(d.v.shape, k);
      return words.elementName(index.join(", "), d.indices[k]);
    }
    return words.storageName(d.start + k, d.counts[k]);
  }

  /** Put the layer's focusable cell over its cell k (hidden when there is no cell). */
  function placeCursor(layer, k) {
    const n = cellCount(layer);
    layer.cursor.hidden = n === 0;
    if (n === 0) return;
    layer.at = Math.max(0, Math.min(n - 1, k));
    const g = layerGeometry(layer);
    const [x, y] = cellXY(g, layer.at);
    const size = Math.max(g.cell - (g.cell >= 6 ? 1 : 0), 1);
    Object.assign(layer.cursor.style, { left: `${x}px`, top: `${y}px`, width: `${size}px`, height: `${size}px` });
    layer.cursor.setAttribute("aria-label", cellName(layer, layer.at));
    layer.cursor.dataset.cell = String(layer.at);
  }

  /** Explain cell k of the layer as pointing at it does, and say it in the live region. */
  function focusCell(layer, k) {
    if (!drawn) return;
    placeCursor(layer, k);
    if (layer.kind === "logical") pointLogical(layer.at);
    else pointStorage(layer.at);
    live.textContent = `${layer.cursor.getAttribute("aria-label")}${FULL_STOP[lang]}${readout.textContent}`;
    layer.cursor.scrollIntoView({ block: "nearest", inline: "nearest" });
  }

  function onCursorKey(layer) {
    return (e) => {
      if (!drawn) return;
      const g = layerGeometry(layer);
      const n = cellCount(layer);
      const row = g.cols;
      const page = g.kind === "logical" && g.nd >= 3 ? g.rows * g.cols : row * Math.max(1, g.rows);
      const moves = {
        ArrowLeft: -1, ArrowRight: 1, ArrowUp: -row, ArrowDown: row, PageUp: -page, PageDown: page,
      };
      let k;
      if (e.key in moves) k = layer.at + moves[e.key];
      else if (e.key === "Home") k = 0;
      else if (e.key === "End") k = n - 1;
      else return;
      e.preventDefault();
      if (k < 0 || k >= n) return;
      focusCell(layer, k);
    };
  }
  for (const layer of [logical, storage]) {
    layer.cursor.addEventListener("focus", () => focusCell(layer, layer.at));
    layer.cursor.addEventListener("blur", () => unhighlight());
    layer.cursor.addEventListener("keydown", onCursorKey(layer));
  }

  // ---- pointing --------------------------------------------------------------------------------

  function highlight(logicalCells, storageCells) {
    const d = drawn;
    for (const [layer, g, cells] of [[logical, d.lg, logicalCells], [storage, d.sg, storageCells]]) {
      const { ctx } = sizeCanvas(layer.over, g);
      ctx.clearRect(0, 0, g.width, g.height);
      ctx.fillStyle = d.theme.wash;
      ctx.fillRect(0, 0, g.width, g.height);
      const s = g.cell >= 6 ? g.cell - 1 : g.cell;
      for (const k of cells) {
        const [x, y] = cellXY(g, k);
        ctx.clearRect(x - 1, y - 1, s + 2, s + 2);
      }
      ctx.strokeStyle = d.theme.ring;
      ctx.lineWidth = g.cell >= 12 ? 2 : 1;
      for (const k of cells.length > 4096 ? [] : cells) {
        const [x, y] = cellXY(g, k);
        ctx.strokeRect(x - 0.5, y - 0.5, s + 1, s + 1);
      }
    }
  }

  function unhighlight() {
    if (!drawn) return;
    for (const [layer, g] of [[logical, drawn.lg], [storage, drawn.sg]]) {
      layer.over.getContext("2d").clearRect(0, 0, g.width, g.height);
    }
    readout.replaceChildren(h("span", { class: "tl-hint", text: hint }));
  }

  function pointLogical(k) {
    const d = drawn;
    const { v } = d;
    const index = unravel(v.shape, k);
    const pos = d.indices[k];
    highlight([k], [pos - d.start]);
    const terms = index.map((i, dd) => `${i}·${v.stride[dd]}`);
    const formula = `${[String(v.offset), ...terms].join(" + ")} = ${pos}`;
    const at = `${pythonExpression(model.get("label"), ops)}[${index.join(", ")}]`;
    readout.replaceChildren(
      h("span", { class: "tl-where", text: words.reads(at, pos) }),
      h("span", { class: "tl-sep", text: words.formulaLabel }),
      h("code", { class: "tl-formula", "data-position": String(pos), text: formula }),
    );
    const value = model.get("storage");
    if (value) readout.append(h("span", { class: "tl-value", text: words.value(d.textOfPos(pos)) }));
  }

  /** Point at the i-th drawn storage cell, storage position start + i. */
  function pointStorage(i) {
    const d = drawn;
    const pos = d.start + i;
    const readers = [];
    const idx = d.indices;
    for (let k = 0; k < idx.length; k++) if (idx[k] === pos) readers.push(k);
    highlight(readers, [i]);
    const count = readers.length;
    const shown = readers.slice(0, 6).map((k) => `[${unravel(d.v.shape, k).join(", ")}]`).join(" ");
    const text = count === 0 ? words.notRead(pos) : words.readBy(pos, count, `${shown}${count > 6 ? " …" : ""}`);
    readout.replaceChildren(h("span", { class: "tl-readers", "data-count": String(count), "data-position": String(pos), text }));
  }

  function onMove(layer, kind) {
    return (e) => {
      if (!drawn) return;
      const rect = layer.base.getBoundingClientRect();
      const g = kind === "logical" ? drawn.lg : drawn.sg;
      const k = cellAt(g, e.clientX - rect.left, e.clientY - rect.top);
      if (k < 0) return unhighlight();
      if (kind === "logical") pointLogical(k);
      else pointStorage(k);
    };
  }
  // pointerdown too, so that a tap on a touch screen explains a cell.
  for (const type of ["pointermove", "pointerdown"]) {
    logical.wrap.addEventListener(type, onMove(logical, "logical"));
    storage.wrap.addEventListener(type, onMove(storage, "storage"));
  }
  logical.wrap.addEventListener("pointerleave", unhighlight);
  storage.wrap.addEventListener("pointerleave", unhighlight);

  // ---- model events ----------------------------------------------------------------------------

  const reload = () => load();
  const traits = ["shape", "stride", "offset", "storage_size", "storage", "label", "dtype", "max_elements"];
  for (const key of traits) model.on(`change:${key}`, reload);
  const onOps = () => {
    // Another view of the same model (or Python) changed the ops: follow it.
    const incoming = JSON.stringify(model.get("ops") || []);
    if (incoming !== JSON.stringify(ops)) load();
  };
  model.on("change:ops", onOps);

  let lastWidth = 0;
  const resize = typeof ResizeObserver === "undefined" ? null : new ResizeObserver(() => {
    const w = stage.clientWidth;
    if (w && Math.abs(w - lastWidth) > 8 && cur && !stage.hidden) {
      lastWidth = w;
      draw(cur);
    }
  });
  if (resize) resize.observe(stage);

  // The page's theme changed (the book's switch, JupyterLab's setting, the system): the canvases
  // take their colours from it, so draw again.
  const unwatch = watchTheme(() => {
    if (!drawn || stage.hidden || !cur) return;
    const dark = themeOf(root).dark;
    if (dark !== drawn.theme.dark) draw(cur);
  });

  load();
  lastWidth = stage.clientWidth;

  return () => {
    for (const key of traits) model.off(`change:${key}`, reload);
    model.off("change:ops", onOps);
    if (resize) resize.disconnect();
    unwatch();
  };
}

export default { render };
