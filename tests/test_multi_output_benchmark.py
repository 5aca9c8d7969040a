"""benchmarks/multi_output.py runs and prints its ratio table (a smoke test: the ratios are this machine's, and not asserted)."""
import subprocess, sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_multi_output_benchmark_quick_prints_its_table():
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "multi_output.py"), "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    rows = [line for line in run.stdout.splitlines() if " x 10, " in line]
    assert len(rows) == 3 and all(float(line.split()[-1]) > 0 for line in rows), run.stdout
