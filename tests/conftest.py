"""Put tests/ on sys.path so helpers such as replay_checker import by name."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
