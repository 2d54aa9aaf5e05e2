"""Helpers of the hostile-input battery (tests/test_hostile_inputs.py)."""

import pytest

pytest.register_assert_rewrite("hostile.harness")
