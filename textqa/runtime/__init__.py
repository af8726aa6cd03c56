"""Small runtime helpers every layer may use, each named for what it is.

* ``paths``: where the repository keeps data, artifacts and the cache;
* ``files``: reading input files with errors that name the line, writing output files whole;
* ``process_pool``: the loky process pool for training's CPU-bound steps;
* ``dask_cluster``: connecting to a Dask cluster (``--scheduler``);
* ``gc_pause``: pausing Python's cyclic garbage collector over allocation-heavy blocks;
* ``numba_cache``: numba's on-disk cache made safe for several processes;
* ``wordnet``: WordNet 3.0 from the copy bundled in ``data/``.
"""
