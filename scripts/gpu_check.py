"""Run the device-dependent demonstrations of chapter 8 on a real CUDA GPU and print the results.

The book is executed on a CPU-only machine, where chapter 8's GPU cells (guarded by
``torch.cuda.is_available()``) take their other branch and say what a GPU shows. On a machine with
a GPU this script shows what really happens, so the chapter's statements can be checked:

1. the error when a CUDA tensor meets a CPU tensor (and a CPU module meets a CUDA input);
2. the CUDA memory counters around ``del`` and ``torch.cuda.empty_cache()``;
3. float16 / bfloat16 limits and matmul error on the GPU;
4. ``torch.autocast("cuda", ...)`` output dtypes;
5. a checkpoint saved from the GPU, loaded with and without ``map_location``.

Usage: ``python scripts/gpu_check.py [--strict]``. Without a GPU it says so and exits 0 (1 with
``--strict``). Nothing is downloaded; temporary files go to a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile

import torch

MIB = 2 ** 20


def section(title: str) -> None:
    print(f"\n== {title}")


def attempt(label: str, fn) -> None:
    """Run fn and print its result or the exception it raised (type and message)."""
    try:
        print(f"{label}: {fn()}")
    except Exception as err:  # the point is to show the error text
        print(f"{label}: {type(err).__name__}: {err}")


def mixing_devices(dev: torch.device) -> None:
    section("mixing devices")
    gpu = torch.rand(1000, 1000, device=dev)
    cpu = torch.rand(1000, 1000)
    attempt("gpu_tensor + cpu_tensor", lambda: (gpu + cpu).device)
    attempt("CPU Linear on a CUDA input", lambda: torch.nn.Linear(1000, 10)(gpu).device)
    attempt("gpu_tensor + 0-d CPU tensor", lambda: (gpu + torch.tensor(2.0)).device)
    attempt("fix: gpu_tensor + cpu_tensor.to(gpu_tensor.device)", lambda: (gpu + cpu.to(gpu.device)).device)


def memory_counters(dev: torch.device) -> None:
    section("CUDA memory counters (MiB)")

    def report(label: str) -> None:
        print(f"{label:28s} allocated {torch.cuda.memory_allocated(dev) // MIB:5d} | "
              f"reserved {torch.cuda.memory_reserved(dev) // MIB:5d} | "
              f"peak allocated {torch.cuda.max_memory_allocated(dev) // MIB:5d}")

    torch.cuda.synchronize(dev)
    torch.cuda.empty_cache()
    torch.cuda.reset_peak_memory_stats(dev)
    report("start")
    a = torch.empty(256 * MIB // 4, device=dev)  # 256 MiB of float32
    report("after a 256 MiB tensor")
    view = a[:10]
    del a
    report("after del a (a view lives)")
    del view
    report("after del the view")
    torch.cuda.empty_cache()
    report("after empty_cache()")
    b = torch.empty(256 * MIB // 4, device=dev)
    torch.cuda.empty_cache()
    report("empty_cache with b alive")
    del b


def half_precision(dev: torch.device) -> None:
    section("float16 / bfloat16 on the GPU")
    for dtype, start in ((torch.float16, 2048.0), (torch.bfloat16, 256.0)):
        attempt(f"{dtype} {start} + 1", lambda: (torch.tensor(start, dtype=dtype, device=dev) + 1).item())
    attempt("float16 300 * 300", lambda: (torch.tensor(300.0, dtype=torch.float16, device=dev) ** 2).item())
    attempt("float16 1e-8", lambda: torch.tensor(1e-8, device=dev).half().item())
    torch.manual_seed(0)
    a, b = torch.randn(256, 256, device=dev), torch.randn(256, 256, device=dev)
    exact = a.double() @ b.double()
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        product = (a.to(dtype) @ b.to(dtype)).double()
        err = ((product - exact).abs().max() / exact.abs().max()).item()
        print(f"256 x 256 matmul in {str(dtype):15s}: max error / max value {err:.1e}")
    # with TF32 allowed, float32 matmuls on Ampere and later GPUs round inputs to 10 mantissa bits
    print(f"(torch.backends.cuda.matmul.allow_tf32 = {torch.backends.cuda.matmul.allow_tf32})")
    x = torch.zeros(1000, 1000, device=dev)
    for dtype in (torch.float32, torch.float16, torch.bfloat16):
        print(f"{str(dtype):15s} 1000 x 1000 nbytes {x.to(dtype).nbytes:,d}")


def autocast_cuda(dev: torch.device) -> None:
    section("torch.autocast on CUDA")
    torch.manual_seed(0)
    a, b = torch.randn(256, 256, device=dev), torch.randn(256, 256, device=dev)
    for dtype in (torch.float16, torch.bfloat16):
        with torch.autocast(device_type="cuda", dtype=dtype):
            product = a @ b
            loss = torch.nn.functional.mse_loss(product, b)
            summed = product.sum()
            soft = torch.softmax(product, dim=-1)
        print(f"autocast {dtype}: a @ b -> {product.dtype} | mse_loss -> {loss.dtype} | "
              f"sum -> {summed.dtype} | softmax -> {soft.dtype}")


def checkpoint_roundtrip(dev: torch.device) -> None:
    section("a checkpoint saved from the GPU")
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "model_state.pt")
        torch.save({"weights": torch.nn.Linear(2, 2).to(dev).state_dict()}, path)
        attempt("torch.load(path) devices",
                lambda: sorted({str(t.device) for t in torch.load(path)["weights"].values()}))
        attempt("torch.load(path, map_location='cpu') devices",
                lambda: sorted({str(t.device) for t in torch.load(path, map_location="cpu")["weights"].values()}))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--strict", action="store_true", help="exit 1 when no CUDA GPU is found")
    args = parser.parse_args(argv)

    print(f"torch {torch.__version__} | CUDA build: {torch.version.cuda or 'none'} | "
          f"cuda available: {torch.cuda.is_available()} | mps available: {torch.backends.mps.is_available()}")
    if not torch.cuda.is_available():
        print("No CUDA GPU found: nothing to check here. The chapter's CPU-only demonstrations "
              "cover this machine; run this script on a machine with a CUDA GPU.")
        return 1 if args.strict else 0

    dev = torch.device("cuda", torch.cuda.current_device())
    print(f"device: {torch.cuda.get_device_name(dev)} ({dev})")
    mixing_devices(dev)
    memory_counters(dev)
    half_precision(dev)
    autocast_cuda(dev)
    checkpoint_roundtrip(dev)
    return 0


if __name__ == "__main__":
    sys.exit(main())
