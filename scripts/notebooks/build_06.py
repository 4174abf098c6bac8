"""Write notebooks/06-expand-in-practice.ipynb (cell sources and tags only; execute it afterwards).

Run from the repository root:

    .venv/bin/python scripts/notebooks/build_06.py
    cd notebooks && ../.venv/bin/jupyter execute --inplace 06-expand-in-practice.ipynb

The chapter mirrors sections 5-6 of seeds/000 and sections 1, 3 and 4 of seeds/002: every
application they show is run as written (punctuation restored), judged, and followed by an
idiomatic version with an assert that proves it right.
"""

import nbbuild

cells = nbbuild.Cells()
md, code = cells.md, cells.code


md(r"""
# Expand in practice

The previous chapter took `expand` apart. This one puts it to work on the jobs the source articles
use it for: weighting samples in a loss, masking attention, building length masks, adding position
embeddings, aligning a student model with its teacher, comparing every sample with every other,
scaling channels, adding noise. For each job, the article's code is run as written, torch gives
the verdict, and an idiomatic version follows with an `assert` that it computes the right thing.

A pattern runs through the chapter: most of these `expand` and `expand_as` calls are not needed,
because broadcasting does the same stretching on its own. Where they fail, they fail for the
reason the previous chapter's rule predicts; where they are dropped carelessly, broadcasting can
produce a wrong result without any error.

You will be able to:

- apply per-sample weights to a loss without the silent `[B] * [B, 1] -> [B, B]` trap;
- mask attention scores so that padded keys get exactly zero probability;
- build length masks and slice position embeddings for sequences shorter than the maximum;
- judge an `einsum` by the shape and values it really produces;
- scale channels (bias, quantization scales) with the right shape, and check the gradient.
""")

code('''
import math
import operator
import warnings

import torch.nn as nn
import torch.nn.functional as F
from tensorlens.measure import shares_storage, storage_bytes, time_call
''')

md(r"""
Broadcasting, which all of this leans on, lines shapes up from the right. The explorer below shows
it for the shapes of the chapter's first trap: a loss of shape `[8]` times weights of shape
`[8, 1]`. Edit the shapes to try others.
""")

code('''
tl.BroadcastExplorer((8,), (8, 1))
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Per-sample loss weights

The second article starts from a batch of 4 samples, 2 classes, and one weight per sample stored
as a column `[4, 1]`. Its two "traditional" ways and its `expand_as` way:
""")

code('''
weights = torch.tensor([[0.5], [1.0], [0.8], [1.2]])  # shape [4, 1]
output = torch.randn(4, 2)                             # model output
# method 1: repeat
weighted_repeat = output * weights.repeat(1, 2)
# method 2: view + expand
weighted_view_expand = output * weights.view(4, 1).expand(4, 2)
# the article's choice
weighted_expand_as = output * weights.expand_as(output)
# nothing at all
weighted_broadcast = output * weights
for w in (weighted_repeat, weighted_view_expand, weighted_expand_as):
    assert torch.equal(w, weighted_broadcast)
print("all four agree; shape", tuple(weighted_broadcast.shape))
''')

md(r"""
All correct, and all the same: `[4, 2] * [4, 1]` already broadcasts. `expand_as` does not make
the code safer than no call at all; what makes it safe is the weights having the shape `[B, 1]`.
The article's comparison table (repeat "error-prone", expand_as "low error rate") is an opinion;
the next snippet tests it.

### The headline loss, as written

The article's weighted cross-entropy, with its lost punctuation restored:
""")

code('''
class WeightedCrossEntropyLoss(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, logits, targets, weights):
        """
        logits: [batch_size, num_classes]
        targets: [batch_size]
        weights: [batch_size, 1]
        """
        # standard cross-entropy, one value per sample
        ce_loss = nn.functional.cross_entropy(logits, targets,
                                              reduction="none")
        # align the weights with expand_as
        weighted_loss = ce_loss * weights.expand_as(ce_loss)
        return weighted_loss.mean()


batch_size = 8
num_classes = 3
logits = torch.randn(batch_size, num_classes)
targets = torch.randint(0, num_classes, (batch_size,))
weights = torch.rand(batch_size, 1) * 2  # random weights in 0-2
''')

code('''
criterion = WeightedCrossEntropyLoss()
loss = criterion(logits, targets, weights)
print(f"Calculated loss: {loss.item():.4f}")
''', "raises-exception")

md(r"""
It raises. `cross_entropy(..., reduction="none")` returns one loss per sample, shape `[8]`; the
weights are `[8, 1]`; and `expand` never removes a dimension (chapter 5's rule 1). The article's
explanation, "expand_as turns `[batch_size, 1]` into `[batch_size]`", describes something
`expand_as` cannot do.

### The silent trap next to it

The tempting repair is to drop the `expand_as`. Then nothing raises, and the loss is wrong:
""")

code('''
ce_loss = F.cross_entropy(logits, targets, reduction="none")   # [8]
trap = ce_loss * weights                                        # [8] * [8, 1]
print("shape of the weighted loss:", tuple(trap.shape))
print(f"its mean: {trap.mean().item():.4f}")
''')

md(r"""
`[8]` is read as `[1, 8]`, and against `[8, 1]` both dimensions stretch: every weight multiplies
every sample's loss, 64 products instead of 8, and the mean of those is
`mean(weights) * mean(losses)`, whatever sample each weight belongs to. The explorer above shows
this exact case.

### The fix, checked

Give the weights the loss's shape, `[B]`, with `reshape` (which also fails loudly if there are not
exactly `B` weights), and check the result against the definition, one sample at a time:
""")

code('''
class PerSampleWeightedCE(nn.Module):
    """Mean over the batch of
    weight[b] * cross_entropy(logits[b], targets[b])."""

    def forward(self, logits, targets, weights):
        ce_loss = F.cross_entropy(logits, targets, reduction="none")   # [B]
        return (ce_loss * weights.reshape(ce_loss.shape)).mean()  # [B] * [B]


loss = PerSampleWeightedCE()(logits, targets, weights)
by_hand = sum(weights[b, 0] * -torch.log_softmax(logits[b], dim=0)[targets[b]]
              for b in range(batch_size)) / batch_size
print(f"fixed loss: {loss.item():.4f}   by hand: {by_hand.item():.4f}   "
      f"the [B, B] trap: {trap.mean().item():.4f}")
assert torch.allclose(loss, by_hand)
# what the trap computes
assert torch.allclose(trap.mean(), weights.mean() * ce_loss.mean())
assert not torch.allclose(trap.mean(), loss)
try:
    torch.ones(5, 1).reshape(ce_loss.shape)    # 5 weights for 8 losses
    raise AssertionError("reshape should have refused")
except RuntimeError as err:
    print("5 weights for 8 losses:", err)
''')

md(r"""
Two related points. `F.cross_entropy` has a `weight=` argument, but it takes one weight per
**class**, not per sample; with 8 per-sample weights and 3 classes it refuses:
""")

code('''
F.cross_entropy(logits, targets, weight=weights.reshape(-1))
''', "raises-exception")

md(r"""
And `.mean()` divides by the batch size whatever the weights add up to; if you want a weighted
*average*, divide by `weights.sum()` instead. Which one is right depends on what the weights mean;
the article's version (and ours) is the first.

## Attention and padding masks

The second article masks attention scores like this (section 4.1):
""")

code('''
attention_scores = torch.randn(4, 10, 10)      # [batch, seq_len, seq_len]
padding_mask = torch.randint(0, 2, (4, 10, 1))  # [batch, seq_len, 1]
masked_scores = attention_scores * padding_mask.expand_as(attention_scores)
probs = masked_scores.softmax(dim=-1)
hit = (padding_mask[0, :, 0] == 0).nonzero().flatten().tolist()
print("shape", tuple(masked_scores.shape),
      "- rows (queries) of sample 0 the mask hits:", hit)
print(f"attention of query {hit[0]} after softmax:",
      [round(p, 2) for p in probs[0, hit[0]].tolist()])
''')

md(r"""
It runs, but it does not mask:

1. **Multiplying by 0 does not hide a score, it sets it to 0**, and `softmax` gives a score of 0
   the weight `exp(0) = 1` like any other. Masked positions keep a share of the attention.
2. **The mask has the wrong orientation.** Padding belongs to *keys* (the columns, the last
   dimension of the scores): no query should attend to a padded key. A `[B, L, 1]` mask stretched
   along the last dimension blanks whole *rows* (queries) instead. (`randint(0, 2)` also makes a
   random pattern, where padding is a tail of each sequence.)

The masked query above attends uniformly (0.1 to each of the 10 keys): all its scores became 0.
Even in the right orientation, one 0/1 value per key, multiplying leaves attention on padding:
""")

code('''
lengths = torch.tensor([10, 7, 4, 1])           # real tokens per sequence
key_mask = torch.arange(10) < lengths[:, None]  # [B, L], True = real token
multiplied = (attention_scores * key_mask[:, None, :]).softmax(dim=-1)
print("sample 3 (1 real key), probability on its padded keys, per query:\\n   ",
      [round(p, 2) for p in multiplied[3, :, 1:].sum(dim=-1).tolist()])
''')

md(r"""
A correct mask: from the sequence lengths, one bool per key, shaped `[B, 1, L]` so it broadcasts
over the queries; `masked_fill` with `-inf` before the softmax:
""")

code('''
probs = attention_scores.masked_fill(~key_mask[:, None, :],
                                     float("-inf")).softmax(dim=-1)

assert torch.all(
    probs.masked_select(~key_mask[:, None, :].expand_as(probs)) == 0)
assert torch.allclose(probs.sum(dim=-1), torch.ones(4, 10))
# the same as a softmax over the real keys only
for b, n in enumerate(lengths.tolist()):
    assert torch.allclose(probs[b, :, :n],
                          attention_scores[b, :, :n].softmax(dim=-1))
print("sample 2, query 0:", [round(p, 3) for p in probs[2, 0].tolist()])
''')

md(r"""
Padded keys get exactly 0 and the real keys share all the probability, the same numbers as a
softmax over the real keys alone. PyTorch's own attention agrees: with a bool `attn_mask`
(True = may attend), `F.scaled_dot_product_attention` gives the same output.
""")

code('''
q, k, v = torch.randn(4, 10, 8), torch.randn(4, 10, 8), torch.randn(4, 10, 8)
scores = q @ k.transpose(-2, -1) / math.sqrt(8)
ours = scores.masked_fill(~key_mask[:, None, :],
                          float("-inf")).softmax(dim=-1) @ v
theirs = F.scaled_dot_product_attention(q, k, v,
                                        attn_mask=key_mask[:, None, :])
assert torch.allclose(ours, theirs, atol=1e-6)
print("masked attention == F.scaled_dot_product_attention:", True)
''')

md(r"""
One more catch: a row in which *every* key is masked is all `-inf`, and its softmax is `NaN`
(0/0). Exercise 3 below asks for a version that returns zeros there.
""")

code('''
# a sample made only of padding
no_real_key = torch.zeros(1, 10, dtype=torch.bool)
row = scores[:1].masked_fill(~no_real_key[:, None, :],
                             float("-inf")).softmax(dim=-1)[0, 0]
print(row)
assert row.isnan().all()
''')

md(r"""
## Sequence-length masks

The first article builds a mask from lengths `[2, 3, 4]` (section 5):
""")

code('''
lengths = torch.tensor([2, 3, 4])
max_len = lengths.max()
mask = torch.arange(max_len).expand(len(lengths), -1) < lengths.unsqueeze(1)
print(mask)
''')

md(r"""
Correct, and exactly the printout in the article. The `expand` is not needed: comparing a row
`[max_len]` with a column `[B, 1]` broadcasts to `[B, max_len]` by itself. (`max_len` here is a
0-d tensor, which `arange` accepts; `int(lengths.max())` is the plain number.)
""")

code('''
idiomatic = torch.arange(int(lengths.max())) < lengths[:, None]
assert torch.equal(idiomatic, mask)
assert idiomatic.tolist() == [[t < n for t in range(4)]
                              for n in lengths.tolist()]
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Position embeddings for inputs shorter than `max_len`

The first article's sinusoidal position embedding, with `"pe"` restored as the buffer name. It
stores a `[1, max_len, d_model]` table and expands it over the batch:
""")

code('''
class PositionEmbedding(nn.Module):
    def __init__(self, d_model, max_len=5000):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = torch.arange(0, max_len).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2)
                             * -(math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))  # [1, max_len, d_model]

    def forward(self, x):
        # x: [batch, seq_len, d_model]
        # "broadcasts automatically"
        return x + self.pe.expand(x.size(0), -1, -1)


embed = PositionEmbedding(d_model=16)
x = torch.randn(2, 10, 16)   # a batch of 2 sequences of 10 tokens
''')

code('''
embed(x)
''', "raises-exception")

md(r"""
It only works when every input is exactly `max_len` (5000) tokens long. `expand(x.size(0), -1, -1)`
keeps the table's 5000 positions, and 10 cannot meet 5000. The expand is also unnecessary: the
table's leading 1 broadcasts over the batch on its own. What is needed is the first `seq_len`
rows, a slice (a view, no copy):
""")

code('''
class SlicedPositionEmbedding(PositionEmbedding):
    def forward(self, x):
        # [1, seq_len, d] broadcasts over the batch
        return x + self.pe[:, : x.size(1)]


fixed = SlicedPositionEmbedding(d_model=16)
out = fixed(x)
assert out.shape == x.shape
assert shares_storage(fixed.pe[:, : x.size(1)], fixed.pe)
# one entry, from the formula itself
t, i = 7, 3
# odd i: cosine, with the exponent of i - 1
angle = t / 10000 ** ((i - 1) / 16)
assert torch.allclose(out[1, t, i] - x[1, t, i],
                      torch.tensor(math.cos(angle)), atol=1e-6)
print("output", tuple(out.shape),
      "- position 7, feature 3 adds cos(7 / 10000^(2/16))")
''')

md(r"""
The article credits `expand` with saving "30% of GPU memory" in a vision transformer. That figure
comes with no measurement, and it cannot be checked without that model. What can be measured is
what this layer allocates. For a batch of 32 sequences of 196 tokens of width 768, the positional
term built by `expand` costs no new storage and built by `repeat` costs a full batch-sized copy;
the sum allocates one batch-sized result either way:
""")

code('''
B, L, D = 32, 196, 768
big = SlicedPositionEmbedding(d_model=D, max_len=L)
tokens = torch.zeros(B, L, D)
term_expand = big.pe.expand(B, -1, -1)
term_repeat = big.pe.repeat(B, 1, 1)
terms = {"pe table": big.pe, "expand term": term_expand,
         "repeat term": term_repeat, "tokens + pe (result)": tokens + big.pe}
for name, t in terms.items():
    mib, shared = storage_bytes(t) / 2**20, shares_storage(t, big.pe)
    print(f"{name:22} {mib:7.2f} MiB   shares the table: {shared}")
''')

md(r"""
So against `repeat`, `expand` (or plain broadcasting) saves one temporary of the size of the
activations, 18.4 MiB here, for as long as that temporary lives. What fraction of a whole model's
memory that is depends on everything else in the model, so this book does not repeat the 30%.

## Multi-task and per-sample weights

Section 4.2 of the second article weights two heads' outputs with the same per-sample weights:
""")

code('''
cls_output = torch.randn(4, 5)   # classification head
reg_output = torch.randn(4, 3)   # regression head
# one weight per sample
task_weights = torch.tensor([[0.7], [1.0], [1.2], [0.9]])
weighted_cls = cls_output * task_weights.expand_as(cls_output)
weighted_reg = reg_output * task_weights.expand_as(reg_output)
assert torch.equal(weighted_cls, cls_output * task_weights)
assert torch.equal(weighted_reg, reg_output * task_weights)
print(tuple(weighted_cls.shape), tuple(weighted_reg.shape),
      "- same as plain broadcasting")
''')

md(r"""
Correct; the `expand_as` calls are again redundant. Note what these weights are: one per
*sample*, shared by both heads. Weighting *tasks* against each other is usually one number per
loss, `loss = w_cls * loss_cls + w_reg * loss_reg`; no expanding is involved at all.

### The "performance tips", measured

The same section recommends expanding the weights once in advance and multiplying in place:
""")

code('''
weights = torch.rand(1024, 1)
output = torch.randn(1024, 256)
weights = weights.expand_as(output)   # "expand in advance"
output *= weights                     # "in-place operation"
print(tuple(output.shape), "- runs; output still owns",
      storage_bytes(output), "bytes")
''')

md(r"""
It runs. Whether the advice helps is a measurement: multiplying by the `[1024, 1]` column, by
the pre-expanded view, and in place. (Timings depend on the machine; these were measured when the
page was built, on one thread.)
""")

code('''
w_col = torch.rand(1024, 1)
w_exp = w_col.expand(1024, 256)
out = torch.randn(1024, 256)
for name, fn in [("out * w_col", lambda: out * w_col),
                 ("out * w_col.expand_as(out)",
                  lambda: out * w_col.expand_as(out)),
                 ("out * w_exp (pre-expanded)", lambda: out * w_exp),
                 ("out.mul_(w_col) (in place)", lambda: out.mul_(w_col))]:
    print(f"{name:28} {time_call(fn, min_run_time=0.05) * 1e6:8.1f} µs")
''', "nbval-ignore-output")

md(r"""
Pre-expanding buys nothing that stands out from the run-to-run noise of these numbers, and there
is no reason it should: broadcasting builds the same stride-0 view internally.
Working in place saves the allocation of a result (`1024 * 256 * 4` bytes = 1 MiB here), but it
is not free under autograd: if the overwritten tensor is needed for the backward pass, the
backward pass refuses to run.
""")

code('''
z = torch.randn(4, 3, requires_grad=True)
out = torch.sigmoid(z)          # sigmoid's backward needs its own output
out *= torch.rand(4, 1)         # the in-place "optimization"
out.sum().backward()
''', "raises-exception")

md(r"""
The article's last claim here, that `expand_as(other)` and `expand(other.size())` are equally
fast, is true for the plain reason that one calls the other (the previous chapter shows both build
the same view).

## Distillation outputs of different lengths

The first article aligns a teacher's output `[B, T_t, D]` with a student's `[B, T_s, D]`:
""")

code('''
def align_and_loss(student_out, teacher_out, T_t, T_s, compare):
    """The article's snippet;
    `compare` stands for its lost comparison operator."""
    if compare(T_t, T_s):
        student_out = student_out.expand_as(teacher_out)   # expand the student
    else:
        teacher_out = teacher_out[:, :T_s, :]             # cut the teacher
    return F.mse_loss(student_out, teacher_out)
''')

md(r"""
Extraction lost the comparison between `T_t` and `T_s`. Both readings, `>` and `<`, on three
pairs of lengths:
""")

code('''
B, D = 2, 8
for reading, compare in [(">", operator.gt), ("<", operator.lt)]:
    for T_t, T_s in [(6, 4), (4, 6), (5, 1)]:
        teacher, student = torch.randn(B, T_t, D), torch.randn(B, T_s, D)
        with warnings.catch_warnings():
            # mse_loss warns before it raises
            warnings.simplefilter("ignore")
            try:
                loss = align_and_loss(student, teacher, T_t, T_s, compare)
                result = f"loss {loss.item():.3f}"
            except RuntimeError as err:
                result = "RuntimeError: " + str(err).split(".")[0]
        print(f"T_t {reading} T_s, T_t={T_t}, T_s={T_s}: {result}")
''')

md(r"""
Whichever operator was meant, the `expand_as` branch can only succeed when the student has a
single time step (`T_s = 1`): `expand` stretches size-1 dimensions, it cannot turn 4 steps into 6.
With `>`, the truncating branch runs when the teacher is the *shorter* one and cannot shorten it.
With `<`, truncating the teacher works when it is longer, and the student-longer case raises.

What to do instead depends on what the time steps mean. If both models cover the same input at
different rates, resample the student to the teacher's length (linear interpolation along time);
if the student saw a prefix, cut both to the shorter length. Checked below: interpolating to the
same length changes nothing, and a sequence that moves linearly in time is resampled exactly.
""")

code('''
def resample_time(x, length):
    """[B, T, D] -> [B, length, D], linear interpolation along T."""
    return F.interpolate(x.transpose(1, 2), size=length, mode="linear",
                         align_corners=True).transpose(1, 2)


teacher, student = torch.randn(2, 6, 8), torch.randn(2, 4, 8)
loss = F.mse_loss(resample_time(student, teacher.size(1)), teacher)
assert torch.allclose(resample_time(student, 4), student)
# moves linearly in time
ramp = torch.linspace(0, 1, 4).reshape(1, 4, 1).expand(2, 4, 8)
ramp6 = torch.linspace(0, 1, 6).reshape(1, 6, 1).expand(2, 6, 8)
assert torch.allclose(resample_time(ramp, 6), ramp6)
common = min(teacher.size(1), student.size(1))
loss_prefix = F.mse_loss(student[:, :common], teacher[:, :common])
print(f"resampled: {loss.item():.3f}   prefix only: {loss_prefix.item():.3f}")
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Batch similarity: what the einsum really computes

The first article's "technique 1" (section 6) claims an efficient similarity between every pair
of samples in a batch:
""")

code('''
x = torch.randn(32, 128)                       # [N, D]
x_exp = x.unsqueeze(1).expand(-1, 32, -1)      # [N, N, D]
y_exp = x.unsqueeze(0).expand(32, -1, -1)
# "efficient matrix operation"
sim = torch.einsum("nid,njd->nij", x_exp, y_exp)
print("sim shape:", tuple(sim.shape))
''')

md(r"""
A similarity matrix for 32 samples is `[32, 32]`; this is `[32, 32, 32]`. Reading the subscripts:
`x_exp[n, i] = x[n]` and `y_exp[n, j] = x[j]`, so `sim[n, i, j] = x[n] · x[j]`. The index `i`
does nothing: the result is the right matrix, `x @ x.T`, copied 32 times.
""")

code('''
gram = x @ x.T   # [N, N]: gram[n, j] = x[n] . x[j]
assert torch.allclose(sim, gram[:, None, :].expand(32, 32, 32), atol=1e-4)
print("every sim[:, i, :] equals x @ x.T:", True)
print("storage: sim", storage_bytes(sim), "bytes,",
      "x @ x.T", storage_bytes(gram), "bytes")
''')

md(r"""
So the claim of efficiency does not hold: 32 times the memory and, measured, far more time than
the one matrix product it replaces:
""")

code('''
for name, fn in [("article's einsum",
                  lambda: torch.einsum("nid,njd->nij", x_exp, y_exp)),
                 ("x @ x.T", lambda: x @ x.T),
                 ("einsum('id,jd->ij', x, x)",
                  lambda: torch.einsum("id,jd->ij", x, x))]:
    print(f"{name:26} {time_call(fn, min_run_time=0.05) * 1e6:8.1f} µs")
''', "nbval-ignore-output")

md(r"""
The right versions need no `expand` at all: `x @ x.T` or `torch.einsum("id,jd->ij", x, x)` for
dot products; normalize the rows first for cosine similarity, and check against
`F.cosine_similarity`, which broadcasts `[N, 1, D]` against `[1, N, D]`:
""")

code('''
unit = F.normalize(x, dim=1)
cosine = unit @ unit.T
assert torch.allclose(torch.einsum("id,jd->ij", x, x), gram, atol=1e-4)
pairwise = F.cosine_similarity(x[:, None, :], x[None, :, :], dim=-1)   # [N, N]
assert torch.allclose(cosine, pairwise, atol=1e-5)
assert torch.allclose(cosine.diagonal(), torch.ones(32), atol=1e-5)
print("cosine similarity:", tuple(cosine.shape))
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Per-channel bias and quantization scales

A per-channel value for an `[N, C, H, W]` batch must line up with dimension 1. Shaped `[C, 1, 1]`
(or `[1, C, 1, 1]`) it broadcasts over the batch and the pixels; the first article's `expand` to
`[N, C, H, W]` (section 1, run in the previous chapter) is a view of the same thing. A convolution's
own bias is exactly that:
""")

code('''
images = torch.randn(2, 3, 8, 8)
kernel = torch.randn(4, 3, 3, 3)
bias = torch.randn(4)
with_bias = F.conv2d(images, kernel, bias=bias)
assert torch.allclose(with_bias,
                      F.conv2d(images, kernel) + bias[:, None, None],
                      atol=1e-5)
print("conv2d's bias == + bias[:, None, None] on", tuple(with_bias.shape))
''')

md(r"""
The first article's "best practice" custom layer (section 4) gets the dimensions wrong:
""")

code('''
def custom_layer(x):
    assert x.dim() == 4 and x.size(1) == 1
    weights = torch.randn(1, 64, 1, 1)  # [C_out, C_in, H, W]
    # expand the dimensions explicitly
    weights = weights.expand(-1, x.size(0), -1, -1)  # keep the C_out dimension
    return x * weights
''')

code('''
custom_layer(torch.randn(8, 1, 5, 5))
''', "raises-exception")

md(r"""
It tries to stretch the 64 channels to the batch size, which only "works" when the batch is
exactly 64, and then the product is `[64, 64, 5, 5]`: every sample times every channel weight, the
batch and channel dimensions crossed.
""")

code('''
print(tuple(custom_layer(torch.randn(64, 1, 5, 5)).shape))
''')

md(r"""
A per-channel weight multiplies each channel of each sample by its own number. Shaped
`[1, C, 1, 1]`, no `expand` is needed:
""")

code('''
x = torch.randn(8, 64, 5, 5)
channel_weights = torch.randn(64)
y = x * channel_weights.view(1, -1, 1, 1)
assert y.shape == x.shape
assert torch.equal(y[3, 10], x[3, 10] * channel_weights[10])
''')

md(r"""
The quantization example of the first article (section 6) spreads a trainable scale with its
`smart_expand`, which raises there (previous chapter). A single scale needs nothing but
broadcasting; a per-channel scale is shaped `[1, C, 1, 1]`. Checked against PyTorch's own fake
quantization, and the scale's gradient checked against the sum the previous chapter predicts:
""")

code('''
activations = torch.randn(4, 3, 8, 8)
scale = torch.tensor([0.1, 0.05, 0.2])          # one scale per channel
zero_point = torch.zeros(3, dtype=torch.int32)
s = scale.view(1, 3, 1, 1)
by_hand = torch.clamp(torch.round(activations / s), -128, 127) * s
builtin = torch.fake_quantize_per_channel_affine(activations, scale,
                                                 zero_point, 1, -128, 127)
assert torch.equal(by_hand, builtin)

trainable = torch.tensor([0.1, 0.05, 0.2], requires_grad=True)
upstream = torch.randn(4, 3, 8, 8)
(activations * trainable.view(1, 3, 1, 1) * upstream).sum().backward()
assert torch.allclose(trainable.grad,
                      (activations * upstream).sum(dim=(0, 2, 3)), atol=1e-5)
print("fake quantization matches; scale.grad = sum over N, H, W:",
      [round(g, 3) for g in trainable.grad.tolist()])
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Noise augmentation

The first article's "efficient" augmentation (section 3) adds a random offset to one image, eight
times:
""")

code('''
original = torch.randn(1, 3, 224, 224)
noise = torch.randn(8, 1, 1, 1).expand(-1, 3, 224, 224)
augmented = original + noise   # broadcasting does the rest
print(tuple(augmented.shape))
print("noise storage:", storage_bytes(noise), "bytes;  augmented:",
      storage_bytes(augmented), "bytes")
''')

md(r"""
It runs and is cheap where it can be: the noise is 8 numbers (32 bytes) behind a stride-0 view.
The `expand` is again optional (`original + torch.randn(8, 1, 1, 1)` broadcasts to the same
`[8, 3, 224, 224]`), and the result is a full batch (4.6 MiB) either way; nothing can avoid that,
because the eight images differ.

Be clear about what this noise is: **one** number per image, added to every pixel of every
channel, a brightness shift. Pixel noise needs one number per pixel, `torch.randn(8, 3, 224, 224)`,
and no view can make that cheaper.
""")

code('''
per_image = noise[:, 0, 0, 0]   # the 8 numbers behind the view
assert torch.equal(augmented, original + per_image.view(8, 1, 1, 1))
pixel_noise = 0.1 * torch.randn(8, 3, 224, 224)
print("distinct noise values in image 0: brightness shift",
      noise[0].unique().numel(),
      "  pixel noise", pixel_noise[0].unique().numel())
''')

# ---------------------------------------------------------------------------------------------
md(r"""
## Check yourself

**1. Cross-entropy with one weight per sample.** Write `weighted_ce(logits, targets, weights)`:
the batch mean of `weights[b] * CE(logits[b], targets[b])`, for weights shaped `[B]` or `[B, 1]`,
as a 0-d tensor, without Python loops.
""")

code('''
def weighted_ce(logits, targets, weights):
    """logits [B, C], targets [B], weights [B] or [B, 1]
    -> 0-d weighted mean loss."""
    per_sample = F.cross_entropy(logits, targets, reduction="none")   # [B]
    return (per_sample * weights.reshape(per_sample.shape)).mean()
''', "solution", "hide-input")

code('''
tl.check("practice.weighted_ce", weighted_ce)
''')

md(r"""
**2. A mask from sequence lengths.** Write `length_mask(lengths, max_len)`, the `[B, max_len]`
bool tensor with `out[b, t] == (t < lengths[b])`, without loops.
""")

code('''
def length_mask(lengths, max_len):
    """lengths [B] (int64), max_len int -> [B, max_len] bool,
    True on real positions."""
    return torch.arange(max_len) < lengths[:, None]
''', "solution", "hide-input")

code('''
tl.check("practice.length_mask", length_mask)
''')

md(r"""
**3. Softmax that ignores padded keys.** Write `masked_softmax(scores, key_mask)` for scores
`[B, Q, K]` and a `[B, K]` bool mask of real keys: padded keys get probability exactly 0, and a
sample with no real key gets rows of zeros, not `NaN`.
""")

code('''
def masked_softmax(scores, key_mask):
    """scores [B, Q, K], key_mask [B, K] bool -> softmax over the real keys;
    0 elsewhere."""
    keep = key_mask[:, None, :]                                   # [B, 1, K]
    probs = scores.masked_fill(~keep, float("-inf")).softmax(dim=-1)
    return probs.masked_fill(~keep, 0.0)
''', "solution", "hide-input")

code('''
tl.check("practice.masked_softmax", masked_softmax)
''')

md(r"""
**Predict the result.**
""")

code('''
tl.Quiz([
    {"question": "`(torch.ones(4) * torch.ones(4, 1)).shape` is ...",
     "answer": "(4, 4)",
     "explain": "`[4]` is read as `[1, 4]`; against `[4, 1]` both dims stretch. The silent trap "
                "of per-sample weights."},
    {"question": "`torch.ones(8, 1).expand_as(torch.ones(8))`: the result's shape, or 'error'?",
     "answer": "error",
     "explain": "expand never drops a dimension; the weights need `reshape(8)` or `squeeze(1)`."},
    {"question": "Scores `[2., 1., 3.]` are multiplied by the mask `[1, 1, 0]`, then softmaxed. "
                 "Is the third probability 0?",
     "choices": ["yes, exactly 0", "no, it is exp(0) / (e**2 + e + 1), about 0.09",
                 "it is NaN"],
     "answer": 1,
     "explain": "Multiplying sets the score to 0, and softmax gives exp(0) = 1 its share. Use "
                "`masked_fill(~mask, float('-inf'))`."},
    {"question": "`(torch.arange(4) < torch.tensor([1, 3])[:, None]).sum()` is ...",
     "answer": "tensor(4)",
     "explain": "A [2, 4] mask with 1 + 3 True entries."},
    {"question": "With `x` of shape `[5, 3]`, the article's "
                 "`torch.einsum('nid,njd->nij', x.unsqueeze(1).expand(-1, 5, -1), "
                 "x.unsqueeze(0).expand(5, -1, -1))` has shape ...",
     "answer": "(5, 5, 5)",
     "explain": "Every index in the output survives; the i index only repeats `x @ x.T`."},
])
''')

code('''
# The quiz answers, checked against torch (hidden in the book).
assert (torch.ones(4) * torch.ones(4, 1)).shape == (4, 4)
try:
    torch.ones(8, 1).expand_as(torch.ones(8))
    raise AssertionError("expand_as should have raised")
except RuntimeError:
    pass
_p = (torch.tensor([2.0, 1.0, 3.0]) * torch.tensor([1, 1, 0])).softmax(dim=0)
assert abs(_p[2].item() - 1 / (math.e ** 2 + math.e + 1)) < 1e-6
assert str((torch.arange(4) < torch.tensor([1, 3])[:, None]).sum()) == "tensor(4)"
_x = torch.randn(5, 3)
assert torch.einsum("nid,njd->nij", _x.unsqueeze(1).expand(-1, 5, -1),
                    _x.unsqueeze(0).expand(5, -1, -1)).shape == (5, 5, 5)
''', "remove-input")

md(r"""
## Summary

- Most `expand` / `expand_as` calls in everyday code are redundant: broadcasting stretches size-1
  and missing leading dimensions by itself, with the same stride-0 views.
- What matters is the **shape you broadcast from**. Per-sample weights against a `[B]` loss must
  be `[B]`; a `[B, 1]` column turns the product into `[B, B]` without an error.
- Masks hide keys: shape `[B, 1, K]`, `masked_fill(~mask, -inf)` before the softmax; multiplying
  scores by 0 hides nothing. Fully masked rows need care (NaN).
- `expand` cannot change a size other than 1: to fit a shorter input, slice (position tables); to
  align different lengths, resample or cut (distillation).
- Check an `einsum` by its output shape: `nid,njd->nij` on expanded copies is `x @ x.T`, 32 times.
- Per-channel values are shaped `[1, C, 1, 1]`; their gradient is the sum over the other dims.
- Numbers such as "saved 30% memory" mean nothing unmeasured: measure the bytes (`storage_bytes`)
  and the time (`torch.utils.benchmark`) of the part you changed.
""")

print("wrote", nbbuild.write("06-expand-in-practice.ipynb", cells).relative_to(nbbuild.ROOT))
