"""Shared fixtures: a private cache directory, the device under test, Hypothesis profiles.

Tests run on CUDA when a GPU is present (the same suite runs on the device machine) and on
the CPU through Triton's interpreter otherwise. TRITONIZE_TEST_DEVICE=cpu|cuda overrides.
"""
import os
import tempfile

import pytest
import torch
from hypothesis import HealthCheck, settings

# a cache of our own, so tests never read a developer's ~/.cache/tritonize
os.environ.setdefault("TRITONIZE_CACHE_DIR", tempfile.mkdtemp(prefix="tritonize-test-cache-"))

settings.register_profile("ci", max_examples=40, deadline=None, derandomize=True,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("dev", max_examples=40, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile("long", max_examples=1000, deadline=None,
                          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))

DEVICE = os.environ.get("TRITONIZE_TEST_DEVICE") or ("cuda" if torch.cuda.is_available() else "cpu")


@pytest.fixture(scope="session")
def device():
    return DEVICE


def pytest_report_header(config):
    return f"tritonize tests on device: {DEVICE}"
