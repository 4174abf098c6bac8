"""tl.plain_warnings: a warning prints as ``Category: message``, without the cell's path."""
import subprocess
import sys


def test_a_warning_prints_without_its_file_and_line():
    script = ("import warnings, tensorlens as tl\n"
              "tl.plain_warnings()\n"
              "warnings.warn('read this', UserWarning)\n"
              "warnings.warn('and this', DeprecationWarning, stacklevel=1)\n")
    run = subprocess.run([sys.executable, "-W", "always", "-c", script], capture_output=True,
                         text=True, check=True)
    assert run.stderr == "UserWarning: read this\nDeprecationWarning: and this\n"


def test_without_it_python_prints_the_file_and_line():
    run = subprocess.run([sys.executable, "-c", "import warnings; warnings.warn('read this')"],
                         capture_output=True, text=True, check=True)
    assert run.stderr.startswith("<string>:1: UserWarning: read this")
