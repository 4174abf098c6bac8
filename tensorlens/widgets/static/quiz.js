// quiz.js -- the Quiz widget: predict-the-result questions checked in the browser.
//
// Draws a title, then one card per question: the question text (code in `backticks` and
// ```fenced blocks```), either one button per choice or a text box with a "Check" button, a
// feedback line, and the explanation once the question is answered right or the reader asks for
// the answer. A wrong answer says "try again"; the reader may retry as often as they like. A score
// line counts the questions answered right. Everything is computed here from the synced traits
// `questions` (list of {question, choices|null, answer, accept, explain}) and `title`, so the
// quiz works in the static book with no kernel. Invalid state shows a message, never a broken
// widget. Loaded by tensorlens/widgets/quiz.py (its _esm is this file); normalizeAnswer must agree with
// tensorlens.widgets.quiz.normalize_answer (tests/test_quiz.py runs both on the same table).
//
// Stable hooks for browser tests: .tl-quiz, .tl-quiz-title, .tl-quiz-score,
// .tl-quiz-question[data-index=i][data-state=unanswered|correct|wrong|revealed],
// button.tl-quiz-choice[data-choice=j], input.tl-quiz-input, button.tl-quiz-submit,
// button.tl-quiz-reveal, .tl-quiz-feedback, .tl-quiz-explain, .tl-quiz-error.

import { widgetLanguage } from "./i18n.js";

/**
 * Canonical form of a free-text answer (same rule as the Python normalize_answer).
 * @param {string} text
 * @returns {string}
 */
export function normalizeAnswer(text) {
  let s = String(text).trim().toLowerCase().replace(/[`'"]/g, "").trim();
  s = s.replace(/\.$/, "").trim();
  if (s.startsWith("tensor(")) return s.replace(/\s+/g, "");
  const size = /^(?:torch\.)?size\((.*)\)$/.exec(s.replace(/\s+/g, ""));
  if (size) s = size[1];
  const hadBrackets = /[()[\]]/.test(s);
  s = s.replace(/[()[\]]/g, " ").replace(/[\s,]+/g, ",").replace(/^,+|,+$/g, "");
  return !s && hadBrackets ? "()" : s;
}

/**
 * What kind of text a free-text answer is, so the text box can say what form to type:
 * "shape" (a tuple or list), "number", "bool", "dtype" (torch.something) or "text".
 * @param {string} answer
 * @returns {"shape"|"number"|"bool"|"dtype"|"text"}
 */
export function answerKind(answer) {
  const s = String(answer).trim();
  if (/^[([]/.test(s)) return "shape";
  if (/^[-+]?(\d[\d,_]*)?\.?\d+(e[-+]?\d+)?$/i.test(s)) return "number";
  if (/^(true|false)$/i.test(s)) return "bool";
  if (/^torch\.\w+$/.test(s)) return "dtype";
  return "text";
}

/**
 * Split question text into segments: plain text, inline `code` and ```fenced``` blocks.
 * @param {string} text
 * @returns {{kind: "text"|"code"|"block", text: string}[]}
 */
export function segments(text) {
  const out = [];
  const parts = String(text).split(/```/);
  parts.forEach((part, i) => {
    if (i % 2 === 1) {
      out.push({ kind: "block", text: part.replace(/^[a-z]*\n/, "").replace(/\n$/, "") });
      return;
    }
    part.split(/`/).forEach((piece, j) => {
      if (piece) out.push({ kind: j % 2 === 1 ? "code" : "text", text: piece });
    });
  });
  return out;
}

/**
 * Is `given` the right answer to question `q`? (choice index or free text)
 * @returns {boolean}
 */
export function isCorrect(q, given) {
  if (Array.isArray(q.choices)) return given === q.answer;
  const accepted = (q.accept && q.accept.length ? q.accept : [q.answer]).map(normalizeAnswer);
  return accepted.includes(normalizeAnswer(given));
}

/** A problem with the synced questions, or null when they are usable. */
export function validateQuestions(questions) {
  if (!Array.isArray(questions) || questions.length === 0) return "This quiz has no questions.";
  for (const [i, q] of questions.entries()) {
    if (!q || typeof q.question !== "string") return `Question ${i + 1} has no text.`;
    if (Array.isArray(q.choices)) {
      if (!Number.isInteger(q.answer) || q.answer < 0 || q.answer >= q.choices.length) {
        return `Question ${i + 1} has no valid right choice.`;
      }
    } else if (typeof q.answer !== "string") {
      return `Question ${i + 1} has no answer.`;
    }
  }
  return null;
}

/**
 * The quiz's own words, by the language of the page it is drawn on, or Chinese when the kernel
 * speaks it (./i18n.js widgetLanguage). The questions are the notebook's, as written (in Chinese
 * from a Chinese kernel); the two default titles have Chinese names too.
 */
export const WORDS = {
  en: {
    number: (n) => `Question ${n}`, reveal: "Show the answer", correct: "Correct!",
    wrong: "Not quite: try again.", answerLabel: (n) => `Answer to question ${n}`,
    placeholder: { shape: "your answer, e.g. (3, 4)", number: "your answer: a number",
      bool: "True or False", dtype: "your answer, e.g. torch.float32", text: "your answer" },
    check: "Check", empty: "Type an answer first.",
    answer: (a) => `Answer: ${a}`, score: (right, n) => `${right} of ${n} answered correctly`,
    broken: (err) => `This quiz could not be drawn: ${err}`, titles: {},
  },
  zh: {
    number: (n) => `第 ${n} 题`, reveal: "显示答案", correct: "正确！",
    wrong: "不太对，再试一次。", answerLabel: (n) => `第 ${n} 题的答案`,
    placeholder: { shape: "你的答案，例如 (3, 4)", number: "你的答案：一个数", bool: "True 或 False",
      dtype: "你的答案，例如 torch.float32", text: "你的答案" },
    check: "检查", empty: "请先输入答案。",
    answer: (a) => `答案：${a}`, score: (right, n) => `答对 ${right} 题，共 ${n} 题`,
    broken: (err) => `无法显示这个测验：${err}`,
    titles: { "Check yourself": "自测", "Predict the result": "预测结果" },
  },
};

function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (key === "text") node.textContent = value;
    else node.setAttribute(key, value);
  }
  for (const child of children) node.append(child);
  return node;
}

function rich(text, cls) {
  const node = h("div", { class: cls });
  for (const seg of segments(text)) {
    if (seg.kind === "block") node.append(h("pre", {}, [h("code", { text: seg.text })]));
    else if (seg.kind === "code") node.append(h("code", { text: seg.text }));
    else node.append(document.createTextNode(seg.text));
  }
  return node;
}

function drawQuestion(q, index, onChange, words) {
  const card = h("div", { class: "tl-quiz-question", "data-index": String(index), "data-state": "unanswered" });
  card.append(h("div", { class: "tl-quiz-number", text: words.number(index + 1) }), rich(q.question, "tl-quiz-text"));
  const feedback = h("div", { class: "tl-quiz-feedback", role: "status", "aria-live": "polite" });
  const explain = rich(q.explain, "tl-quiz-explain");
  explain.hidden = true;
  const reveal = h("button", { class: "tl-quiz-reveal", type: "button", text: words.reveal });
  reveal.hidden = true;
  const answerText = Array.isArray(q.choices) ? q.choices[q.answer] : q.answer;

  const setState = (state, message) => {
    card.dataset.state = state;
    feedback.textContent = message;
    explain.hidden = !(state === "correct" || state === "revealed");
    reveal.hidden = state !== "wrong";
    onChange();
  };
  const judge = (given) => {
    if (isCorrect(q, given)) setState("correct", words.correct);
    else setState("wrong", words.wrong);
  };

  if (Array.isArray(q.choices)) {
    const list = h("div", { class: "tl-quiz-choices" });
    q.choices.forEach((choice, j) => {
      const button = h("button", { class: "tl-quiz-choice", type: "button", "data-choice": String(j) });
      button.append(rich(choice, "tl-quiz-choice-text"));
      button.addEventListener("click", () => {
        for (const b of list.children) b.removeAttribute("data-picked");
        button.setAttribute("data-picked", "true");
        judge(j);
      });
      list.append(button);
    });
    card.append(list);
  } else {
    const input = h("input", { class: "tl-quiz-input", type: "text", "aria-label": words.answerLabel(index + 1),
      placeholder: words.placeholder[answerKind(q.answer)], autocomplete: "off", spellcheck: "false" });
    const submit = h("button", { class: "tl-quiz-submit", type: "button", text: words.check });
    submit.addEventListener("click", () => {
      if (!input.value.trim()) setState("unanswered", words.empty);
      else judge(input.value);
    });
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") submit.click(); });
    card.append(h("div", { class: "tl-quiz-answer-row" }, [input, submit]));
  }
  reveal.addEventListener("click", () => setState("revealed", words.answer(answerText)));
  card.append(feedback, reveal, explain);
  return card;
}

function draw(model, root, words) {
  root.replaceChildren();
  const questions = model.get("questions");
  const problem = validateQuestions(questions);
  const title = model.get("title");
  if (title) root.append(h("div", { class: "tl-quiz-title", text: words.titles[title] || title }));
  if (problem) {
    root.append(h("div", { class: "tl-quiz-error", role: "alert", text: problem }));
    return;
  }
  const score = h("div", { class: "tl-quiz-score" });
  const cards = [];
  const update = () => {
    const right = cards.filter((c) => c.dataset.state === "correct").length;
    score.textContent = words.score(right, cards.length);
  };
  questions.forEach((q, i) => cards.push(drawQuestion(q, i, update, words)));
  root.append(...cards, score);
  update();
}

function render({ model, el }) {
  const root = h("div", { class: "tl-quiz" });
  el.append(root);
  const words = WORDS[widgetLanguage(model, el)];
  const redraw = () => {
    try {
      draw(model, root, words);
    } catch (err) {
      root.replaceChildren(h("div", { class: "tl-quiz-error", role: "alert", text: words.broken(err) }));
    }
  };
  model.on("change:questions", redraw);
  model.on("change:title", redraw);
  redraw();
  return () => {
    model.off("change:questions", redraw);
    model.off("change:title", redraw);
  };
}

export default { render };
