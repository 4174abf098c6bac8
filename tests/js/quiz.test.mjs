// The quiz's text box says what form of answer to type, by the kind of the question's answer.
// Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";

import { answerKind, WORDS } from "../../tensorlens/widgets/static/quiz.js";

test("each kind of answer is told apart", () => {
  const table = {
    "(12, 4, 1)": "shape", "()": "shape", "[2, 3]": "shape",
    "18": "number", "4000000": "number", "4,000,000": "number", "-448": "number",
    "0.4": "number", "1e-45": "number", ".5": "number",
    "True": "bool", "false": "bool",
    "torch.float16": "dtype", "torch.int64": "dtype",
    "inf": "text", "x.mT": "text", "torch.Size([3])": "text", "error": "text", "3 bytes": "text",
  };
  for (const [answer, kind] of Object.entries(table)) assert.equal(answerKind(answer), kind, answer);
});

test("both languages have a placeholder for every kind, and a shape one shows a shape", () => {
  const kinds = ["shape", "number", "bool", "dtype", "text"];
  for (const words of [WORDS.en, WORDS.zh]) {
    assert.deepEqual(Object.keys(words.placeholder).sort(), [...kinds].sort());
    assert.match(words.placeholder.shape, /\(3, 4\)/);
    assert.doesNotMatch(words.placeholder.number, /\(/);
  }
});
