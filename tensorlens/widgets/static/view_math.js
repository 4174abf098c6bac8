// view_math.js -- the arithmetic of strided views, in the browser.
//
// Pure functions that mirror tensorlens/layout.py (the Python model, itself checked against
// torch): a view is a plain object {shape, stride, offset, storageSize} over a 1-D storage, and
// every operation returns a new one. Errors are thrown as Error with the model's plain message
// (English, as the model words it), and carry `key` and `args` so that a widget can say the same
// in the page's language: messageIn(err, MESSAGES.zh). The Chinese messages keep what torch itself
// prints, as torch prints it ("view size is not compatible with input tensor's size and stride").
// Loaded by stride_explorer.js (inlined into the widget's ES module by tensorlens/widgets/_esm.py) and
// tested against torch-generated fixtures by tests/js/view_math.test.mjs.

/** @typedef {{shape: number[], stride: number[], offset: number, storageSize: number}} View */

/** A list as Python prints a tuple, so messages read exactly like the model's. */
export const pyTuple = (xs) => (xs.length === 1 ? `(${xs[0]},)` : `(${xs.join(", ")})`);

/** 65536 -> "65,536", as Python's f"{n:,}" (toLocaleString is slow the first time). */
export const fmtInt = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");

/**
 * The messages of the errors thrown here, and of the explorer's cap notice, by language. Every
 * argument is already a number or a formatted string (pyTuple, fmtInt). The English ones are the
 * model's words (tests/js/view_math.test.mjs compares them with the Python model's); the Chinese
 * ones say the same with the book's terms and keep the parts that are torch's own text.
 */
export const MESSAGES = {
  en: {
    notInt: (name, value) => `${name} must be an int, not ${value}`,
    negativeSize: (d, size) => `shape[${d}] is ${size}: sizes must be non-negative`,
    strideCount: (strides, dims) => `stride has ${strides} entries but shape has ${dims} dims: give one stride per dim`,
    negativeStride: (d, stride) =>
      `stride[${d}] is ${stride}: strides must be non-negative (torch has no negative strides)`,
    negativeOffset: (offset) => `offset is ${offset}: the storage offset must be non-negative`,
    negativeStorage: (size) => `storage_size is ${size}: it must be non-negative`,
    outsideStorage: (shape, stride, offset, last, size) =>
      `a stride pointing outside storage: shape ${shape}, stride ${stride} and ` +
      `offset ${offset} reach storage position ${last}, outside a storage of ` +
      `${size} elements (positions 0 to ${size - 1})`,
    dimRange: (name, dim, ndim, lo, hi) =>
      `${name} ${dim} is out of range for a view with ${ndim} dims (expected a dim in [${lo}, ${hi}])`,
    tDims: (ndim) => `t() expects a view with <= 2 dims, but this one has ${ndim}`,
    permuteCount: (given, ndim) =>
      `permute got ${given} dims for a view with ${ndim} dims: name every dim exactly once`,
    permuteRepeat: (dims) => `permute dims ${dims} repeat a dim: duplicate dims are not allowed`,
    expandCount: (given, ndim) =>
      `expand got ${given} sizes for a view with ${ndim} dims: the number of sizes must be at least the number of dims`,
    expandNegative: (size, d) => `expand size ${size} at dim ${d}: sizes must be non-negative`,
    expandNewKeep: (d) => `expand size -1 at dim ${d}: -1 (keep the size) is not allowed in a new leading dim`,
    expandMismatch: (target, d, size, sizes, shape) =>
      `expand size ${target} at dim ${d} must match the existing size ${size} (only dims of ` +
      `size 1 can grow); sizes ${sizes}, view shape ${shape}`,
    zeroDim: (op) => `${op}() cannot be applied to a 0-dim view`,
    narrowLength: (length) => `narrow length is ${length}: it must be non-negative`,
    narrowStart: (start, d, size) =>
      `narrow start ${start} is out of range for dim ${d} of size ${size} (expected a start in [${-size}, ${size}])`,
    narrowEnd: (start, length, d, size) =>
      `narrow start (${start}) + length (${length}) exceeds the size of dim ${d} (${size})`,
    selectIndex: (index, d, size) => `select index ${index} is out of range for dim ${d} of size ${size}`,
    tooManyIndices: (ndim, indexed) => `too many indices for a view with ${ndim} dims: ${indexed} dims indexed`,
    sliceStep: (step) => `slice step is ${step}: steps must be greater than zero`,
    diagonalSame: (dim1, dim2) => `diagonal dims cannot be identical: dim1=${dim1}, dim2=${dim2}`,
    unfoldSize: (size, d, dimSize) => `unfold size ${size} is larger than dim ${d}, which has size ${dimSize}`,
    unfoldNegative: (size) => `unfold size is ${size}: it must be non-negative`,
    unfoldStep: (step) => `unfold step is ${step}: it must be greater than zero`,
    inferTwice: (shape) => `view shape ${shape}: only one dimension can be inferred (-1)`,
    inferNegative: (shape, size, i) => `view shape ${shape}: invalid size ${size} at index ${i}`,
    inferAmbiguous: (total, shape) =>
      `cannot view ${total} elements as shape ${shape}: with a 0 size in the shape ` +
      "the -1 could be any value and is ambiguous",
    inferInvalid: (shape, total) => `shape ${shape} is invalid for a view of ${total} elements`,
    viewStride: (shape, stride, target) =>
      `view size is not compatible with input tensor's size and stride: shape ${shape} ` +
      `with stride ${stride} cannot be viewed as ${target} because at least ` +
      "one new dim spans two separately laid out blocks; use reshape (which copies) instead",
    indexCount: (given, ndim) => `idx has ${given} indices but the view has ${ndim} dims: give one per dim`,
    indexBounds: (i, d, size) => `index ${i} is out of bounds for dim ${d} with size ${size}`,
    unknownOp: (op) => `unknown view operation '${op}'`,
    capElements: (n, cap) =>
      `This view has ${fmtInt(n)} elements, more than this explorer draws (max_elements=${fmtInt(cap)}). ` +
      "Narrow, select or slice it to see it drawn.",
    capSpan: (start, last, size, cap) =>
      `This view reads storage cells ${fmtInt(start)} to ${fmtInt(last)} of ${fmtInt(size)}, ` +
      `a span of ${fmtInt(last - start + 1)} cells, more than this explorer draws ` +
      `(max_elements=${fmtInt(cap)}). Narrow, select or slice it to see it drawn.`,
  },
  zh: {
    notInt: (name, value) => `${name} 必须是整数，而不是 ${value}`,
    negativeSize: (d, size) => `shape[${d}] 为 ${size}：大小必须是非负数`,
    strideCount: (strides, dims) => `stride 有 ${strides} 项，而 shape 有 ${dims} 个维度：每个维度给一个步幅`,
    negativeStride: (d, stride) => `stride[${d}] 为 ${stride}：步幅必须是非负数（torch 没有负步幅）`,
    negativeOffset: (offset) => `offset 为 ${offset}：存储偏移必须是非负数`,
    negativeStorage: (size) => `storage_size 为 ${size}：它必须是非负数`,
    outsideStorage: (shape, stride, offset, last, size) =>
      `步幅指向了存储之外：形状 ${shape}、步幅 ${stride} 和偏移 ${offset} 会读到存储位置 ${last}，` +
      `超出了 ${size} 个元素的存储（位置 0 到 ${size - 1}）`,
    dimRange: (name, dim, ndim, lo, hi) =>
      `${name} ${dim} 超出了 ${ndim} 维视图的维度范围（维度应在 [${lo}, ${hi}] 内）`,
    tDims: (ndim) => `t() 要求视图最多有 2 个维度，但这个视图有 ${ndim} 个`,
    permuteCount: (given, ndim) => `permute 给了 ${given} 个维度，而视图有 ${ndim} 个维度：每个维度必须恰好列出一次`,
    permuteRepeat: (dims) => `permute 的维度 ${dims} 重复了某个维度：duplicate dims are not allowed`,
    expandCount: (given, ndim) => `expand 给了 ${given} 个大小，而视图有 ${ndim} 个维度：大小的个数不能少于维度数`,
    expandNegative: (size, d) => `expand 在维度 ${d} 上的大小为 ${size}：大小必须是非负数`,
    expandNewKeep: (d) => `expand 在维度 ${d} 上的大小为 -1：新增的前导维度不能用 -1（保持原大小）`,
    expandMismatch: (target, d, size, sizes, shape) =>
      `expand 在维度 ${d} 上的大小 ${target} 必须与现有大小 ${size} 一致（只有大小为 1 的维度可以扩展）；` +
      `sizes 为 ${sizes}，视图的形状为 ${shape}`,
    zeroDim: (op) => `${op}() 不能用于 0 维视图`,
    narrowLength: (length) => `narrow 的 length 为 ${length}：它必须是非负数`,
    narrowStart: (start, d, size) =>
      `narrow 的 start ${start} 超出了维度 ${d}（大小为 ${size}）的范围（start 应在 [${-size}, ${size}] 内）`,
    narrowEnd: (start, length, d, size) =>
      `narrow 的 start (${start}) + length (${length}) 超过了维度 ${d} 的大小 (${size})`,
    selectIndex: (index, d, size) => `select 的索引 ${index} 超出了维度 ${d}（大小为 ${size}）的范围`,
    tooManyIndices: (ndim, indexed) => `索引过多：视图只有 ${ndim} 个维度，却索引了 ${indexed} 个维度`,
    sliceStep: (step) => `切片的步进为 ${step}：步进必须大于零`,
    diagonalSame: (dim1, dim2) => `diagonal 的两个维度不能相同：dim1=${dim1}，dim2=${dim2}`,
    unfoldSize: (size, d, dimSize) => `unfold 的 size ${size} 大于维度 ${d} 的大小 ${dimSize}`,
    unfoldNegative: (size) => `unfold 的 size 为 ${size}：它必须是非负数`,
    unfoldStep: (step) => `unfold 的 step 为 ${step}：它必须大于零`,
    inferTwice: (shape) => `view 的形状 ${shape}：only one dimension can be inferred（只能有一个 -1）`,
    inferNegative: (shape, size, i) => `view 的形状 ${shape}：索引 ${i} 处的大小 ${size} 无效`,
    inferAmbiguous: (total, shape) =>
      `无法把 ${total} 个元素视为形状 ${shape}：形状中有大小为 0 的维度时，-1 可以是任何值，因而有歧义`,
    inferInvalid: (shape, total) => `形状 ${shape} 对有 ${total} 个元素的视图无效`,
    viewStride: (shape, stride, target) =>
      `view size is not compatible with input tensor's size and stride：形状 ${shape}、步幅 ${stride} ` +
      `无法以视图变为 ${target}，因为至少有一个新维度跨越了两块分开存放的区域；请改用 reshape（它会复制）`,
    indexCount: (given, ndim) => `idx 有 ${given} 个索引，而视图有 ${ndim} 个维度：每个维度给一个索引`,
    indexBounds: (i, d, size) => `索引 ${i} 超出了维度 ${d}（大小为 ${size}）的范围`,
    unknownOp: (op) => `未知的视图操作 '${op}'`,
    capElements: (n, cap) =>
      `这个视图有 ${fmtInt(n)} 个元素，超过了这个探索器能绘制的数量（max_elements=${fmtInt(cap)}）。` +
      "用 narrow、select 或切片把它缩小，就能看到它的图。",
    capSpan: (start, last, size, cap) =>
      `这个视图读取的存储单元从位置 ${fmtInt(start)} 到 ${fmtInt(last)}（存储共 ${fmtInt(size)} 个单元），` +
      `跨度为 ${fmtInt(last - start + 1)} 个单元，超过了这个探索器能绘制的数量（max_elements=${fmtInt(cap)}）。` +
      "用 narrow、select 或切片把它缩小，就能看到它的图。",
  },
};

/** An Error with the model's (English) message, and what messageIn needs to say it again. */
function fail(key, ...args) {
  const err = new Error(MESSAGES.en[key](...args));
  err.key = key;
  err.args = args;
  return err;
}

/**
 * The message of err in a language's table (MESSAGES.zh, or a widget's own extension of it):
 * errors thrown here are worded again from their key and args; any other keeps its message.
 */
export function messageIn(err, messages) {
  if (err && typeof err.key === "string" && messages && typeof messages[err.key] === "function") {
    return messages[err.key](...err.args);
  }
  return err && err.message !== undefined ? err.message : String(err);
}

/** Number of logical elements of a shape (1 for rank 0). */
export function numel(shape) {
  let n = 1;
  for (const s of shape) n *= s;
  return n;
}

/** Row-major strides of a fresh tensor of this shape (torch's rule: size-0/1 dims count as 1). */
export function contiguousStrides(shape) {
  const stride = new Array(shape.length);
  let acc = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    stride[d] = acc;
    acc *= Math.max(shape[d], 1);
  }
  return stride;
}

function checkInt(value, name) {
  if (!Number.isInteger(value)) throw fail("notInt", name, value);
}

/** Smallest storage size that holds every element the view reads. */
export function requiredStorage(shape, stride, offset) {
  if (numel(shape) === 0) return offset;
  let last = offset;
  for (let d = 0; d < shape.length; d++) last += (shape[d] - 1) * stride[d];
  return last + 1;
}

/**
 * Build and validate a view. stride defaults to contiguous, storageSize to the smallest that fits.
 * @returns {View}
 */
export function makeView(shape, stride = null, offset = 0, storageSize = null) {
  shape = Array.from(shape);
  shape.forEach((s, d) => {
    checkInt(s, `shape[${d}]`);
    if (s < 0) throw fail("negativeSize", d, s);
  });
  stride = stride == null ? contiguousStrides(shape) : Array.from(stride);
  if (stride.length !== shape.length) {
    throw fail("strideCount", stride.length, shape.length);
  }
  stride.forEach((s, d) => {
    checkInt(s, `stride[${d}]`);
    if (s < 0) throw fail("negativeStride", d, s);
  });
  checkInt(offset, "offset");
  if (offset < 0) throw fail("negativeOffset", offset);
  const needed = requiredStorage(shape, stride, offset);
  if (storageSize == null) storageSize = needed;
  checkInt(storageSize, "storage_size");
  if (storageSize < 0) throw fail("negativeStorage", storageSize);
  if (numel(shape) > 0 && needed > storageSize) {
    throw fail("outsideStorage", pyTuple(shape), pyTuple(stride), offset, needed - 1, storageSize);
  }
  return { shape, stride, offset, storageSize };
}

const derive = (v, shape, stride, offset = v.offset) => ({
  shape,
  stride,
  offset,
  storageSize: v.storageSize,
});

/** Wrap a possibly negative dim into [0, ndim); rank 0 accepts -1 and 0 (torch's rule). */
export function wrapDim(dim, ndim, name = "dim") {
  checkInt(dim, name);
  const n = Math.max(ndim, 1);
  if (dim < -n || dim >= n) {
    throw fail("dimRange", name, dim, ndim, -n, n - 1);
  }
  return dim < 0 ? dim + n : dim;
}

export function transpose(v, dim0, dim1) {
  const a = wrapDim(dim0, v.shape.length, "dim0");
  const b = wrapDim(dim1, v.shape.length, "dim1");
  if (v.shape.length === 0) return v;
  const shape = v.shape.slice();
  const stride = v.stride.slice();
  [shape[a], shape[b]] = [shape[b], shape[a]];
  [stride[a], stride[b]] = [stride[b], stride[a]];
  return derive(v, shape, stride);
}

export function t(v) {
  const n = v.shape.length;
  if (n > 2) throw fail("tDims", n);
  return n < 2 ? v : transpose(v, 0, 1);
}

export function permute(v, dims) {
  const n = v.shape.length;
  if (dims.length !== n) {
    throw fail("permuteCount", dims.length, n);
  }
  const wrapped = dims.map((d, i) => wrapDim(d, n, `dims[${i}]`));
  if (new Set(wrapped).size !== n) {
    throw fail("permuteRepeat", pyTuple(dims));
  }
  return derive(v, wrapped.map((d) => v.shape[d]), wrapped.map((d) => v.stride[d]));
}

export function unsqueeze(v, dim) {
  const n = v.shape.length;
  const d = wrapDim(dim, n + 1);
  // The new dim's stride makes it contiguous with the dim it is inserted before.
  const newStride = d >= n ? 1 : v.shape[d] * v.stride[d];
  const shape = v.shape.slice();
  const stride = v.stride.slice();
  shape.splice(d, 0, 1);
  stride.splice(d, 0, newStride);
  return derive(v, shape, stride);
}

/** squeeze(v) drops every size-1 dim; squeeze(v, dim) drops that dim only if its size is 1. */
export function squeeze(v, dim = null) {
  const n = v.shape.length;
  const drop = new Set();
  if (dim == null) {
    v.shape.forEach((s, d) => s === 1 && drop.add(d));
  } else {
    const d = wrapDim(dim, n);
    if (n > 0 && v.shape[d] === 1) drop.add(d);
  }
  const keep = v.shape.map((_, d) => d).filter((d) => !drop.has(d));
  return derive(v, keep.map((d) => v.shape[d]), keep.map((d) => v.stride[d]));
}

export function expand(v, sizes) {
  sizes.forEach((s, i) => checkInt(s, `sizes[${i}]`));
  const n = v.shape.length;
  const m = sizes.length;
  if (m < n) {
    throw fail("expandCount", m, n);
  }
  const negative = (size, i) => fail("expandNegative", size, i);
  if (n === 0) {
    // Every dim of an expanded 0-dim tensor is new and gets stride 0, whatever its size.
    sizes.forEach((size, i) => {
      if (size < 0) throw negative(size, i);
    });
    return derive(v, sizes.slice(), sizes.map(() => 0));
  }
  const shape = new Array(m);
  const stride = new Array(m);
  for (let i = m - 1; i >= 0; i--) {
    const d = n - m + i;
    let size = d >= 0 ? v.shape[d] : 1;
    // A new leading dim of size 1 keeps the stride that makes it contiguous (torch does this).
    let st = d >= 0 ? v.stride[d] : shape[i + 1] * stride[i + 1];
    let target = sizes[i];
    if (target === -1) {
      if (d < 0) {
        throw fail("expandNewKeep", i);
      }
      target = size;
    }
    if (target < 0) throw negative(target, i);
    if (size !== target) {
      if (size !== 1) {
        throw fail("expandMismatch", target, i, size, pyTuple(sizes), pyTuple(v.shape));
      }
      size = target;
      st = 0;
    }
    shape[i] = size;
    stride[i] = st;
  }
  return derive(v, shape, stride);
}

export function narrow(v, dim, start, length) {
  if (v.shape.length === 0) throw fail("zeroDim", "narrow");
  const d = wrapDim(dim, v.shape.length);
  checkInt(start, "start");
  checkInt(length, "length");
  const size = v.shape[d];
  if (length < 0) throw fail("narrowLength", length);
  if (start < -size || start > size) {
    throw fail("narrowStart", start, d, size);
  }
  if (start < 0) start += size;
  if (start + length > size) {
    throw fail("narrowEnd", start, length, d, size);
  }
  const shape = v.shape.slice();
  shape[d] = length;
  return derive(v, shape, v.stride.slice(), v.offset + start * v.stride[d]);
}

export function select(v, dim, index) {
  const n = v.shape.length;
  if (n === 0) throw fail("zeroDim", "select");
  const d = wrapDim(dim, n);
  checkInt(index, "index");
  const size = v.shape[d];
  if (index < -size || index >= size) {
    throw fail("selectIndex", index, d, size);
  }
  if (index < 0) index += size;
  const shape = v.shape.filter((_, i) => i !== d);
  const stride = v.stride.filter((_, i) => i !== d);
  return derive(v, shape, stride, v.offset + index * v.stride[d]);
}

/**
 * Python's v[:, ..., start:stop:step] with `dim` full slices first (null start/stop = open end,
 * step > 0). A negative dim counts from the end.
 */
export function slice(v, dim, start = null, stop = null, step = 1) {
  const n = v.shape.length;
  checkInt(dim, "dim");
  if (dim >= n) {
    throw fail("tooManyIndices", n, dim + 1);
  }
  const d = wrapDim(dim, n);
  if (step == null) step = 1;
  checkInt(step, "slice step");
  if (step <= 0) throw fail("sliceStep", step);
  const size = v.shape[d];
  const clamp = (i, dflt) => {
    if (i == null) return dflt;
    checkInt(i, "slice bound");  // "slice start" / "slice stop" in the model
    if (i < 0) i += size;
    return Math.min(Math.max(i, 0), size);
  };
  const lo = clamp(start, 0);
  const hi = Math.max(clamp(stop, size), lo);
  const shape = v.shape.slice();
  const stride = v.stride.slice();
  shape[d] = Math.floor((hi - lo + step - 1) / step);
  stride[d] = v.stride[d] * step;
  return derive(v, shape, stride, v.offset + lo * v.stride[d]);
}

export function diagonal(v, offset = 0, dim1 = 0, dim2 = 1) {
  checkInt(offset, "offset");
  const n = v.shape.length;
  const a = wrapDim(dim1, n, "dim1");
  const b = wrapDim(dim2, n, "dim2");
  if (a === b) throw fail("diagonalSame", dim1, dim2);
  const len =
    offset >= 0
      ? Math.max(Math.min(v.shape[a], v.shape[b] - offset), 0)
      : Math.max(Math.min(v.shape[a] + offset, v.shape[b]), 0);
  let start = v.offset;
  if (len > 0) start += offset >= 0 ? offset * v.stride[b] : -offset * v.stride[a];
  const keep = v.shape.map((_, d) => d).filter((d) => d !== a && d !== b);
  const shape = keep.map((d) => v.shape[d]).concat([len]);
  const stride = keep.map((d) => v.stride[d]).concat([v.stride[a] + v.stride[b]]);
  return derive(v, shape, stride, start);
}

export function unfold(v, dim, size, step) {
  const n = v.shape.length;
  const d = wrapDim(dim, n, "dimension");
  checkInt(size, "size");
  checkInt(step, "step");
  const dimSize = n === 0 ? 1 : v.shape[d];
  if (size > dimSize) {
    throw fail("unfoldSize", size, d, dimSize);
  }
  if (size < 0) throw fail("unfoldNegative", size);
  if (step <= 0) throw fail("unfoldStep", step);
  if (n === 0) return derive(v, [size], [1]);
  const shape = v.shape.slice();
  const stride = v.stride.slice();
  shape[d] = Math.floor((dimSize - size) / step) + 1;
  stride[d] = step * v.stride[d];
  shape.push(size);
  stride.push(v.stride[d]);
  return derive(v, shape, stride);
}

/** Resolve one -1 in a requested shape (torch's infer_size). */
export function inferSize(sizes, total) {
  let inferred = -1;
  let known = 1;
  sizes.forEach((s, i) => {
    checkInt(s, `sizes[${i}]`);
    if (s === -1) {
      if (inferred >= 0) {
        throw fail("inferTwice", pyTuple(sizes));
      }
      inferred = i;
    } else if (s < 0) {
      throw fail("inferNegative", pyTuple(sizes), s, i);
    } else {
      known *= s;
    }
  });
  const out = sizes.slice();
  if (inferred >= 0) {
    if (known === 0) {
      throw fail("inferAmbiguous", total, pyTuple(sizes));
    }
    if (total % known === 0) {
      out[inferred] = total / known;
      return out;
    }
  } else if (known === total) {
    return out;
  }
  throw fail("inferInvalid", pyTuple(sizes), total);
}

/**
 * Strides for viewing (shape, stride) as newShape without copying, or null when impossible.
 * A port of ATen's computeStride: walk the old dims from the last, grouping runs that are
 * contiguous with each other ("chunks"); each chunk must be split exactly by the new dims.
 */
export function viewStrides(shape, stride, newShape) {
  if (shape.length === 0) return newShape.map(() => 1);
  const total = numel(shape);
  if (total === 0 && shape.length === newShape.length && shape.every((s, i) => s === newShape[i])) {
    return stride.slice();
  }
  const out = new Array(newShape.length);
  if (total === 0) {
    for (let d = newShape.length - 1; d >= 0; d--) {
      out[d] = d === newShape.length - 1 ? 1 : Math.max(newShape[d + 1], 1) * out[d + 1];
    }
    return out;
  }
  let viewD = newShape.length - 1;
  let chunkBase = stride[stride.length - 1];
  let tensorNumel = 1;
  let viewNumel = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    tensorNumel *= shape[d];
    if (d === 0 || (shape[d - 1] !== 1 && stride[d - 1] !== tensorNumel * chunkBase)) {
      while (viewD >= 0 && (viewNumel < tensorNumel || newShape[viewD] === 1)) {
        out[viewD] = viewNumel * chunkBase;
        viewNumel *= newShape[viewD];
        viewD--;
      }
      if (viewNumel !== tensorNumel) return null;
      if (d > 0) {
        chunkBase = stride[d - 1];
        tensorNumel = 1;
        viewNumel = 1;
      }
    }
  }
  return viewD === -1 ? out : null;
}

/** v.view(*sizes): same storage, new shape; -1 is inferred. */
export function view(v, sizes) {
  const shape = inferSize(sizes, numel(v.shape));
  const stride = viewStrides(v.shape, v.stride, shape);
  if (stride === null) {
    throw fail("viewStride", pyTuple(v.shape), pyTuple(v.stride), pyTuple(shape));
  }
  return derive(v, shape, stride);
}

/** Storage position of one logical index: offset + sum(index[d] * stride[d]); -1 is the last. */
export function storageIndex(v, index) {
  if (index.length !== v.shape.length) {
    throw fail("indexCount", index.length, v.shape.length);
  }
  let pos = v.offset;
  index.forEach((i, d) => {
    const n = v.shape[d];
    checkInt(i, `idx[${d}]`);
    if (i < -n || i >= n) throw fail("indexBounds", i, d, n);
    pos += (i < 0 ? i + n : i) * v.stride[d];
  });
  return pos;
}

/** Storage position of every logical element, in row-major logical order (a Float64Array). */
export function storageIndices(v) {
  const n = numel(v.shape);
  const out = new Float64Array(n);
  if (n === 0) return out;
  const nd = v.shape.length;
  if (nd === 0) {
    out[0] = v.offset;
    return out;
  }
  const { shape, stride } = v;
  const lastSize = shape[nd - 1];
  const lastStride = stride[nd - 1];
  const counter = new Array(nd).fill(0);
  let base = v.offset;
  let k = 0;
  // Odometer over the outer dims; the innermost dim is a tight loop.
  while (k < n) {
    for (let j = 0; j < lastSize; j++) out[k++] = base + j * lastStride;
    for (let d = nd - 2; d >= 0; d--) {
      counter[d]++;
      base += stride[d];
      if (counter[d] < shape[d]) break;
      base -= stride[d] * shape[d];
      counter[d] = 0;
    }
  }
  return out;
}

/** Logical index (array) of the k-th element in row-major order. */
export function unravel(shape, k) {
  const index = new Array(shape.length);
  for (let d = shape.length - 1; d >= 0; d--) {
    index[d] = k % shape[d];
    k = Math.floor(k / shape[d]);
  }
  return index;
}

/** torch's is_contiguous: row-major strides, ignoring dims of size 1; empty views are contiguous. */
export function isContiguous(v) {
  if (numel(v.shape) === 0) return true;
  let expected = 1;
  for (let d = v.shape.length - 1; d >= 0; d--) {
    if (v.shape[d] === 1) continue;
    if (v.stride[d] !== expected) return false;
    expected *= v.shape[d];
  }
  return true;
}

/**
 * How many logical elements read each storage cell from start to stop - 1 (a Uint32Array of
 * stop - start; by default the whole storage). Every position the view reads must be inside.
 */
export function readersPerCell(v, indices = storageIndices(v), start = 0, stop = v.storageSize) {
  const counts = new Uint32Array(stop - start);
  for (let k = 0; k < indices.length; k++) counts[indices[k] - start]++;
  return counts;
}

/**
 * The storage cells the explorer draws, {start, stop}: the whole storage when it has at most
 * cap cells (so skipped cells are seen), else the span the view reads, first to last position.
 * Mirrors storage_window in tensorlens/widgets/stride_explorer.py.
 */
export function storageWindow(v, cap) {
  const size = v.storageSize;
  if (size <= cap) return { start: 0, stop: size };
  const start = Math.min(v.offset, size);
  if (numel(v.shape) === 0) return { start, stop: start };
  // Strides are never negative: the first element is the lowest position, the last the highest.
  return { start, stop: requiredStorage(v.shape, v.stride, v.offset) };
}

/**
 * Why the explorer does not draw v ("" when it does): in English (the default) the text of
 * StrideExplorer.notice; messages = MESSAGES.zh says it in Chinese.
 */
export function capNotice(v, cap, messages = MESSAGES.en) {
  const n = numel(v.shape);
  if (n > cap) return messages.capElements(n, cap);
  const { start, stop } = storageWindow(v, cap);
  if (stop - start > cap) return messages.capSpan(start, stop - 1, v.storageSize, cap);
  return "";
}

/**
 * The cheap overlap answers: true for a size>1 dim with stride 0, false when (strides sorted)
 * each stride steps past everything the smaller dims reach; null when only counting can tell.
 */
export function overlapFastPath(v) {
  if (numel(v.shape) <= 1) return false;
  const dims = [];
  v.shape.forEach((n, d) => n > 1 && dims.push([v.stride[d], n]));
  if (dims.some(([s]) => s === 0)) return true;
  dims.sort((a, b) => a[0] - b[0]);
  let reach = 0;
  for (const [s, n] of dims) {
    if (s <= reach) return null;
    reach += (n - 1) * s;
  }
  return false;
}

/** True when two logical elements read the same storage cell (exact, like View.has_overlap). */
export function hasOverlap(v) {
  const quick = overlapFastPath(v);
  if (quick !== null) return quick;
  const seen = new Uint8Array(v.storageSize);
  const indices = storageIndices(v);
  for (let k = 0; k < indices.length; k++) {
    if (seen[indices[k]]) return true;
    seen[indices[k]] = 1;
  }
  return false;
}

/** The operations a widget may replay, by the name the Python model gives them. */
export const VIEW_OPS = { transpose, t, permute, unsqueeze, squeeze, expand, narrow, select, slice, diagonal, unfold, view };

/** Apply one recorded op, `[name, args]` as in the widgets' `ops` trait. */
export function applyOp(v, op, args) {
  if (!Object.hasOwn(VIEW_OPS, op)) throw fail("unknownOp", op);
  return VIEW_OPS[op](v, ...args);
}

const callArgs = (xs) => xs.join(", ");
const sizesArg = (xs) => (xs.length === 0 ? "()" : callArgs(xs));

/**
 * The Python expression for `label` followed by the recorded ops, e.g. "x.t()[:, ::2]".
 * Mirrors python_expression in tensorlens/widgets/stride_explorer.py (same text for the same ops).
 */
export function pythonExpression(label, ops) {
  let text = label;
  for (const [op, args] of ops) {
    if (op === "slice") {
      const [dim, start, stop, step] = args;
      const part = `${start ?? ""}:${stop ?? ""}${step != null && step !== 1 ? `:${step}` : ""}`;
      text += `[${":, ".repeat(dim)}${part}]`;
    } else if (op === "permute" || op === "expand" || op === "view") {
      text += `.${op}(${sizesArg(args[0])})`;
    } else if (op === "diagonal") {
      // Trailing default arguments (offset=0, dim1=0, dim2=1) are left out.
      const defaults = [0, 0, 1];
      let keep = args.length;
      while (keep > 0 && args[keep - 1] === defaults[keep - 1]) keep--;
      text += `.diagonal(${callArgs(args.slice(0, keep))})`;
    } else {
      text += `.${op}(${callArgs(args)})`;
    }
  }
  return text;
}
