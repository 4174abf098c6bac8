"""scripts/gpu_check.py: on a machine without CUDA it must say so and exit cleanly."""

import importlib.util
import pathlib

import pytest
import torch

SCRIPT = pathlib.Path(__file__).resolve().parents[1] / "scripts" / "gpu_check.py"


def load():
    spec = importlib.util.spec_from_file_location("gpu_check", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(torch.cuda.is_available(), reason="this machine has a GPU: the script runs for real")
def test_no_gpu_is_reported_cleanly(capsys):
    gpu_check = load()
    assert gpu_check.main([]) == 0
    out = capsys.readouterr().out
    assert "cuda available: False" in out and "No CUDA GPU found" in out
    assert "==" not in out  # no demonstration section was attempted
    assert gpu_check.main(["--strict"]) == 1


def test_cpu_safe_sections_run(capsys):
    # the sections that do not need CUDA APIs also run on the CPU: catches typos before a GPU run
    gpu_check = load()
    cpu = torch.device("cpu")
    gpu_check.mixing_devices(cpu)
    gpu_check.half_precision(cpu)
    out = capsys.readouterr().out
    assert "torch.float16 2048.0 + 1: 2048.0" in out
    assert "float16 300 * 300: inf" in out
    assert "gpu_tensor + cpu_tensor: cpu" in out
