"""A Python policy on a live Slurm cluster: `dmlkit cluster serve --slurm --policy-file` on a local
Slurm lab (scripts/slurm-lab.sh, as tests/live does). CTest test `python_live` (labels live,
python; run alone like the other live tests). Skipped without root or the Slurm packages."""
import os
import shutil
import subprocess
import sys
import tempfile

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from conftest import BINARY, EXAMPLES, SOURCE_DIR  # noqa: E402

pytestmark = pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("slurmctld"),
                                reason="needs root and Slurm (scripts/install-deps.sh)")


@pytest.fixture
def lab():
    folder = tempfile.mkdtemp(prefix="dmlkit-pylab-")
    script = os.path.join(SOURCE_DIR, "scripts", "slurm-lab.sh")
    subprocess.run([script, "up", folder, "2", "4"], check=True, capture_output=True, timeout=120)
    env = dict(os.environ, SLURM_CONF=os.path.join(folder, "etc", "slurm.conf"))
    try:
        yield folder, env
    finally:
        subprocess.run([script, "down", folder], capture_output=True, timeout=120)
        shutil.rmtree(folder, ignore_errors=True)


def test_serve_runs_a_python_policy_on_slurm(lab):
    folder, env = lab
    for _ in range(3):
        subprocess.run(["sbatch", "-H", "--gres=gpu:2", "-N1", "--wrap", "sleep 3"], check=True, env=env,
                       capture_output=True, timeout=30)
    p = subprocess.run([BINARY, "cluster", "serve", "--slurm", "--policy-file", os.path.join(EXAMPLES, "fifo.py") + ":Fifo",
                        "--round", "2", "--poll", "0.5", "--until-idle", "--max-wall", "90",
                        "--state", os.path.join(folder, "state.json")],
                       env=env, capture_output=True, text=True, timeout=150)
    assert p.returncode == 0, p.stderr
    assert "policy py-fifo" in p.stderr
    assert p.stderr.count("place job") == 3 and p.stderr.count("COMPLETED") == 3
    assert "3 jobs seen finishing" in p.stdout
