"""Benchmarks, run by `make bench`; results go to bench/results.md. Never asserted in tests."""
