"""Helpers of the hostile-input battery (tests/hostile/test_hostile_inputs.py)."""

import pytest

pytest.register_assert_rewrite("hostile.harness")
