// The StrideExplorer's cell colours, in both themes: the number drawn in each cell has at least
// 4.5:1 contrast on its fill (WCAG AA), and neighbouring storage cells stay apart for readers with
// deuteranopia or protanopia (Machado, Oliveira & Fernandes 2009, severity 1, in linear sRGB),
// measured as a CIE76 colour difference in CIELAB. Run: node --test tests/js/
import { test } from "node:test";
import assert from "node:assert/strict";

import { UNREAD, contrast, inkOn, makePalette } from "../../tensorlens/widgets/static/stride_explorer.js";

const SIMULATIONS = {
  normal: null,
  protanopia: [[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216], [-0.003882, -0.048116, 1.051998]],
  deuteranopia: [[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413], [-0.01182, 0.04294, 0.968881]],
};
// Neighbours must differ at least this much (CIE76; about 2.3 is "just noticeable").
const MIN_NEIGHBOUR_DELTA_E = 10;

const toLinear = (c) => {
  const x = c / 255;
  return x <= 0.04045 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4;
};
const toByte = (x) => {
  const v = Math.min(1, Math.max(0, x));
  return 255 * (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055);
};

function simulate(rgb, matrix) {
  if (!matrix) return rgb;
  const lin = rgb.map(toLinear);
  return matrix.map((row) => toByte(row[0] * lin[0] + row[1] * lin[1] + row[2] * lin[2]));
}

function lab(rgb) {
  const [r, g, b] = rgb.map(toLinear);
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047;
  const y = 0.2126 * r + 0.7152 * g + 0.0722 * b;
  const z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (t) => (t > 216 / 24389 ? Math.cbrt(t) : ((24389 / 27) * t + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

const deltaE = (a, b) => Math.hypot(...lab(a).map((v, i) => v - lab(b)[i]));

test("the contrast helper agrees with WCAG's reference values", () => {
  assert.equal(contrast([0, 0, 0], [255, 255, 255]).toFixed(1), "21.0");
  assert.equal(contrast([119, 119, 119], [255, 255, 255]).toFixed(2), "4.48");
  assert.deepEqual(inkOn([255, 255, 0]), inkOn([240, 240, 240]));
  assert.notDeepEqual(inkOn([0, 0, 128]), inkOn([240, 240, 240]));
});

for (const dark of [false, true]) {
  const theme = dark ? "dark" : "light";

  test(`${theme}: every cell's text has 4.5:1 contrast on its colour`, () => {
    for (const count of [1, 2, 3, 6, 12, 24, 64, 65, 256]) {
      for (const [i, rgb] of makePalette(dark, count).rgb.entries()) {
        const ratio = contrast(rgb, inkOn(rgb));
        assert.ok(ratio >= 4.5, `${count} cells, cell ${i} rgb(${rgb}): ${ratio.toFixed(2)}:1`);
      }
    }
    const grey = UNREAD[theme];
    assert.ok(contrast(grey, inkOn(grey)) >= 4.5, `unread rgb(${grey})`);
  });

  test(`${theme}: neighbouring storage cells stay apart under colour-blind simulation`, () => {
    for (const count of [2, 3, 4, 6, 8, 12, 16, 24, 36, 48, 64]) {
      const { rgb } = makePalette(dark, count);
      for (const [vision, matrix] of Object.entries(SIMULATIONS)) {
        for (let i = 0; i + 1 < count; i++) {
          const d = deltaE(simulate(rgb[i], matrix), simulate(rgb[i + 1], matrix));
          assert.ok(d >= MIN_NEIGHBOUR_DELTA_E,
            `${vision}, ${count} cells, cells ${i} and ${i + 1}: deltaE ${d.toFixed(1)}`);
        }
      }
    }
  });
}
