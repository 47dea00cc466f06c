"""The engine is plain Python: importing it pulls in no Django module."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_importing_the_engine_imports_no_django_module():
    code = "import sys; import tables.engine; assert not any(m.startswith('django') for m in sys.modules), sys.modules"
    subprocess.run([sys.executable, "-c", code], cwd=ROOT, check=True, env={"PYTHONPATH": str(ROOT)})


def test_the_engine_source_never_mentions_django_imports():
    paths = sorted((ROOT / "tables" / "engine").rglob("*.py"))
    assert len(paths) >= 10, paths  # the engine's modules were found: an empty list would prove nothing
    for path in paths:
        text = path.read_text()
        assert "import django" not in text, path
        assert "from django" not in text, path
