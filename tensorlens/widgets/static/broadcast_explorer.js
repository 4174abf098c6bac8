// broadcast_explorer.js -- the BroadcastExplorer widget: operand shapes aligned from the right.
//
// Draws one row per operand (a text input with its shape, then one cell per dim of the result)
// and a result row. Each cell is marked kept, stretched (size 1 -> n, stride 0) or prepended (a
// dim the operand does not have), with the stride of the operand's broadcast view; a conflict
// lights up the clashing column and says which dim and sizes clash; text that is not a shape
// gets a message, never a broken widget. The reader can edit shapes and add or remove operands:
// all computing happens here (broadcast_rule.js), so it works in the static book with no kernel.
// The grid is an ARIA table (rows of rowheader, cells), each cell named in words ("A, dim -1: 1
// stretched to 5, stride 0"), so colour is never the only cue; a polite live region says the
// result (or the error) after each edit; adding or removing an operand keeps the keyboard's focus.
// Loaded by tensorlens/widgets/broadcast_explorer.py, whose _esm is this file with broadcast_rule.js
// inlined by tensorlens/widgets/_esm.py. State: the synced trait `operands`, a list of
// {name, text, strides} (strides: of the tensor the operand came from, or null = contiguous).
//
// Stable hooks for browser tests: .tl-bx[data-state=ok|conflict|invalid], .tl-bx-result (the
// result shape, "[3, 5]", empty unless ok), .tl-bx-error (the message), input.tl-bx-input
// [data-operand=i], .tl-bx-cell[data-operand=i][data-dim=j][data-mark=kept|stretched|prepended|
// conflict|unresolved], .tl-bx-result-cell[data-dim=j], button.tl-bx-add,
// button.tl-bx-remove[data-operand=i].
//
// Its words are English, or Chinese on a page that says lang="zh-CN" (WORDS, ./i18n.js). The
// "+ operand" button keeps its name in both: the Chinese page quotes it as `+ operand`.

import { conflictMessage, explainBroadcast, formatShape, parseShape, RULE_WORDS } from "./broadcast_rule.js";
import { pageLanguage } from "./i18n.js";

const MAX_OPERANDS = 6;
const NAMES = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

/**
 * The explorer's own words, by the language of the page it is drawn on (./i18n.js); `rule` holds
 * broadcast_rule.js's messages (parse errors, the conflict sentence). Operand names, shapes and
 * numbers are shown as they are; `dim` counts are the reader's dims, written as words.
 */
export const WORDS = {
  en: {
    title: "Broadcasting: shapes aligned from the right",
    grid: "operand shapes, aligned from the right",
    operand: "operand", shape: "shape", remove: "remove", result: "result",
    marks: {
      kept: "kept",
      stretched: "stretched: size 1 repeated, stride 0",
      prepended: "prepended: a new dim on the left",
      conflict: "conflict",
      unresolved: "no result: the shapes conflict",
    },
    dim: (d) => `dim ${d}`,
    dimTitle: (j, d, mark) => `dim ${j} (${d}): ${mark}`,
    stride: (s) => `stride ${s}`,
    clash: "clash", unknown: "unknown",
    stretchedTo: (size, target) => `${size} stretched to ${target}`,
    noDim: "no dim (acts as 1)",
    noDimStretched: (target) => `no dim (acts as 1), stretched to ${target}`,
    cell: (name, d, said) => `${name}, dim ${d}: ${said}`,
    resultCell: (d, said) => `result, dim ${d}: ${said}`,
    list: (items) => [].concat(items).join(", "),
    shapeOf: (name) => `shape of ${name}`,
    removeOperand: (name) => `remove ${name}`,
    invalid: (name, error) => `${name}: ${error}`,
    broadcastTo: (operands, result) => `${operands} broadcast to ${result}`,
    rule: RULE_WORDS.en,
  },
  zh: {
    title: "广播：形状右对齐",
    grid: "操作数的形状，右对齐",
    operand: "操作数", shape: "形状", remove: "移除", result: "结果",
    marks: {
      kept: "保留",
      stretched: "拉伸：大小为 1 的维度被重复使用，步幅为 0",
      prepended: "补上：在左边新增的维度",
      conflict: "冲突",
      unresolved: "没有结果：形状冲突",
    },
    dim: (d) => `维度 ${d}`,
    dimTitle: (j, d, mark) => `维度 ${j}（${d}）：${mark}`,
    stride: (s) => `步幅 ${s}`,
    clash: "冲突", unknown: "未知",
    stretchedTo: (size, target) => `${size} 拉伸为 ${target}`,
    noDim: "没有这个维度（视为 1）",
    noDimStretched: (target) => `没有这个维度（视为 1），拉伸为 ${target}`,
    cell: (name, d, said) => `${name}，维度 ${d}：${said}`,
    resultCell: (d, said) => `结果，维度 ${d}：${said}`,
    list: (items) => [].concat(items).join("，"),
    shapeOf: (name) => `${name} 的形状`,
    removeOperand: (name) => `移除 ${name}`,
    invalid: (name, error) => `操作数 ${name}：${error}`,
    broadcastTo: (operands, result) => `${operands} 广播为 ${result}`,
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

/** Operands from the model, tolerating a malformed trait rather than breaking. */
function readOperands(model) {
  const raw = model.get("operands");
  if (!Array.isArray(raw)) return [];
  return raw.map((op, i) => ({
    name: typeof op?.name === "string" && op.name ? op.name : NAMES[i % NAMES.length],
    text: typeof op?.text === "string" ? op.text : "",
    strides: Array.isArray(op?.strides) ? op.strides : null,
  }));
}

function writeOperands(model, operands) {
  model.set("operands", operands.map((op) => ({ ...op })));
  model.save_changes();
}

function nextName(operands) {
  const used = new Set(operands.map((op) => op.name));
  return [...NAMES].find((letter) => !used.has(letter)) ?? `T${operands.length}`;
}

/** Parse every operand; keep the tensor's strides only while its text still gives its shape. */
function analyse(operands, words) {
  const parsed = operands.map((op) => parseShape(op.text, words.rule));
  const bad = parsed.findIndex((p) => !p.ok);
  if (bad >= 0) {
    return { state: "invalid", bad, message: words.invalid(operands[bad].name, parsed[bad].error) };
  }
  const plan = explainBroadcast(
    parsed.map((p, i) => {
      const stride = operands[i].strides;
      const fits = stride && stride.length === p.shape.length;
      return { shape: p.shape, stride: fits ? stride : null };
    }),
  );
  if (!plan.ok) {
    const names = operands.map((op) => op.name);
    return { state: "conflict", plan, message: conflictMessage(plan.conflict, names, plan.rank, words.rule) };
  }
  return { state: "ok", plan, message: "" };
}

function cell(row, i, j, plan, name, words) {
  const size = row.padded[j];
  const conflict = plan.conflict;
  // On a conflict there is no result, so only the clash and the missing dims are marked.
  let mark = row.marks ? row.marks[j] : size === null ? "prepended" : "unresolved";
  if (conflict && plan.rank + conflict.dim === j && size !== null) {
    if (i === conflict.operand || i === conflict.otherOperand) mark = "conflict";
  }
  const target = plan.result ? plan.result[j] : null;
  // A prepended dim acts as size 1: "(1)->n" says so, the dashed border says it is new.
  let main;
  if (mark === "stretched") main = `${size}\u2192${target}`;
  else if (size === null) main = target === null || target === 1 ? "(1)" : `(1)\u2192${target}`;
  else main = String(size);
  const sub = row.strides ? words.stride(row.strides[j]) : mark === "conflict" ? words.clash : "\u00a0";
  const said = mark === "stretched" ? words.stretchedTo(size, target)
    : size === null ? (target === null || target === 1 ? words.noDim : words.noDimStretched(target))
      : String(size);
  const label = words.list([words.cell(name, j - plan.rank, said),
    mark === "stretched" || size === null ? "" : words.marks[mark]]
    .concat(row.strides ? [words.stride(row.strides[j])] : []).filter(Boolean));
  return h(
    "div",
    {
      class: "tl-bx-cell",
      role: "cell",
      "aria-label": label,
      "data-operand": String(i),
      "data-dim": String(j),
      "data-mark": mark,
      title: words.dimTitle(j, j - plan.rank, words.marks[mark]),
    },
    [h("span", { class: "tl-bx-size", text: main }), h("span", { class: "tl-bx-stride", text: sub })],
  );
}

// Distinct ids for the labels of several explorers on one page.
let instances = 0;

function render({ model, el }) {
  const uid = ++instances;
  const words = WORDS[pageLanguage(el)];
  const root = h("div", { class: "tl-bx", "data-state": "ok" });
  const grid = h("div", { class: "tl-bx-grid", role: "table", "aria-label": words.grid });
  const message = h("div", { class: "tl-bx-error" });
  const live = h("div", { class: "tl-sr-only tl-bx-live", role: "status", "aria-live": "polite" });
  const add = h("button", { class: "tl-bx-add", type: "button", text: "+ operand" });
  const legend = h("div", { class: "tl-bx-legend" }, [
    ...["kept", "stretched", "prepended"].map((mark) =>
      h("span", { class: "tl-bx-key", "data-mark": mark, text: words.marks[mark] }),
    ),
  ]);
  root.append(
    h("div", { class: "tl-bx-title", text: words.title }),
    h("div", { class: "tl-bx-scroll" }, [grid]),
    message,
    live,
    h("div", { class: "tl-bx-controls" }, [add]),
    legend,
  );
  el.append(root);

  // Inputs persist across redraws so typing never loses focus; only the cells are rebuilt.
  /** @type {{row: HTMLElement, input: HTMLInputElement, name: HTMLElement, remove: HTMLButtonElement, cells: HTMLElement}[]} */
  let rows = [];
  const resultRow = {
    shape: h("span", { class: "tl-bx-result" }),
    cells: h("div", { class: "tl-bx-cells" }),
  };
  const header = h("div", { class: "tl-bx-cells tl-bx-header" });

  function buildRows(count) {
    grid.replaceChildren();
    rows = [];
    const hidden = (text) => h("span", { class: "tl-sr-only", text });
    grid.append(
      h("div", { class: "tl-bx-line tl-bx-head-line", role: "row" }, [
        h("span", { class: "tl-bx-name", role: "columnheader" }, [hidden(words.operand)]),
        h("span", { class: "tl-bx-colhead", role: "columnheader", text: words.shape }),
        h("span", { role: "columnheader" }, [hidden(words.remove)]),
        header,
      ]),
    );
    for (let i = 0; i < count; i++) {
      const id = `tl-bx-${uid}-${i}`;
      const name = h("label", { class: "tl-bx-name", for: id });
      const input = h("input", {
        id,
        class: "tl-bx-input",
        type: "text",
        spellcheck: "false",
        autocomplete: "off",
        "data-operand": String(i),
      });
      const remove = h("button", {
        class: "tl-bx-remove",
        type: "button",
        "data-operand": String(i),
        text: "\u00d7",
      });
      const cells = h("div", { class: "tl-bx-cells" });
      input.addEventListener("input", () => {
        const operands = readOperands(model);
        if (!operands[i]) return;
        // An edited shape no longer describes the tensor it came from: use contiguous strides.
        operands[i] = { ...operands[i], text: input.value, strides: null };
        writeOperands(model, operands);
      });
      remove.addEventListener("click", () => {
        const operands = readOperands(model);
        if (operands.length <= 1) return;
        operands.splice(i, 1);
        writeOperands(model, operands);
        // The button is gone with its row: the keyboard's focus goes to the row now in its place.
        const next = rows[Math.min(i, rows.length - 1)];
        if (next) (next.remove.disabled ? next.input : next.remove).focus();
      });
      const row = h("div", { class: "tl-bx-line", role: "row", "data-operand": String(i) }, [
        h("span", { class: "tl-bx-name", role: "rowheader" }, [name]),
        h("span", { role: "cell" }, [input]),
        h("span", { role: "cell" }, [remove]),
        cells,
      ]);
      grid.append(row);
      rows.push({ row, input, name, remove, cells });
    }
    grid.append(h("div", { class: "tl-bx-rule", role: "none" }));
    grid.append(
      h("div", { class: "tl-bx-line tl-bx-result-line", role: "row" }, [
        h("span", { class: "tl-bx-name", role: "rowheader", "aria-label": words.result }, [
          h("span", { "aria-hidden": "true", text: "=" }),
        ]),
        h("span", { role: "cell" }, [resultRow.shape]),
        h("span", { role: "cell" }),
        resultRow.cells,
      ]),
    );
  }

  function update() {
    const operands = readOperands(model);
    if (operands.length !== rows.length) buildRows(operands.length);
    const outcome = analyse(operands, words);
    root.dataset.state = outcome.state;
    message.textContent = outcome.message;
    const said = outcome.state === "ok"
      ? words.broadcastTo(
        words.list(operands.map((op) => `${op.name} ${op.text.trim() === "" ? "[]" : `[${op.text.trim()}]`}`)),
        formatShape(outcome.plan.result))
      : outcome.message;
    if (live.textContent !== said) live.textContent = said;
    const plan = outcome.plan;
    const rank = plan ? plan.rank : 0;
    // Name, input, remove button, then one column per dim of the result (none while invalid).
    grid.style.gridTemplateColumns =
      "max-content max-content max-content" +
      (rank > 0 ? ` repeat(${rank}, minmax(4.2em, max-content))` : "");
    header.replaceChildren(
      ...Array.from({ length: rank }, (_, j) =>
        h("span", { class: "tl-bx-colhead", role: "columnheader", "data-dim": String(j), text: words.dim(j - rank) }),
      ),
    );
    operands.forEach((op, i) => {
      const r = rows[i];
      r.name.textContent = op.name;
      r.input.setAttribute("aria-label", words.shapeOf(op.name));
      if (r.input.value !== op.text) r.input.value = op.text;
      const invalid = outcome.state === "invalid" && outcome.bad === i;
      r.input.classList.toggle("tl-bx-invalid", invalid);
      r.input.setAttribute("aria-invalid", String(invalid));
      r.remove.disabled = operands.length <= 1;
      r.remove.setAttribute("aria-label", words.removeOperand(op.name));
      r.cells.replaceChildren(...(plan ? plan.rows[i].padded.map((_, j) => cell(plan.rows[i], i, j, plan, op.name, words)) : []));
    });
    resultRow.shape.textContent = outcome.state === "ok" ? formatShape(plan.result) : "";
    resultRow.cells.replaceChildren(
      ...Array.from({ length: rank }, (_, j) => {
        const clash = plan && plan.conflict && rank + plan.conflict.dim === j;
        const text = plan && plan.result ? String(plan.result[j]) : clash ? "\u2717" : "?";
        return h("div", {
          class: "tl-bx-result-cell",
          role: "cell",
          "aria-label": words.resultCell(j - rank, plan && plan.result ? text : clash ? words.clash : words.unknown),
          "data-dim": String(j),
          "data-mark": clash ? "conflict" : "result",
        }, [h("span", { class: "tl-bx-size", text })]);
      }),
    );
    add.disabled = operands.length >= MAX_OPERANDS;
  }

  add.addEventListener("click", () => {
    const operands = readOperands(model);
    if (operands.length >= MAX_OPERANDS) return;
    operands.push({ name: nextName(operands), text: "1", strides: null });
    writeOperands(model, operands);
    // The new row's input takes the focus, so the keyboard can type its shape at once.
    if (rows.length) rows[rows.length - 1].input.focus();
  });

  model.on("change:operands", update);
  update();
  return () => model.off("change:operands", update);
}

export default { render };
