"""The compiled kernel: the rules, the policies and the batch loop (numba), and
the state layout they freeze. The cache key is this package's files
(`unosim.engine.kernel.jit.kernel_sources`); the façade, the traces and the
replay beside it in `unosim.engine` are Python.
"""
