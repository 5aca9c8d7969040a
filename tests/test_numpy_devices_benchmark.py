"""benchmarks/numpy_devices.py, the machine-dependent measurements of chapter 10, runs and prints every line with a
verdict (a smoke test: the verdicts are this machine's, and not asserted)."""
import subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_numpy_devices_quick_prints_every_measurement():
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "numpy_devices.py"), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    lines = [line for line in run.stdout.splitlines() if line.endswith(("holds", "does not hold here"))]
    for device, count in (("sort", 6), ("ranks", 3), ("masks", 4), ("adder", 4), ("grower", 1)):
        assert sum(line.startswith(device + " ") for line in lines) == count, run.stdout
