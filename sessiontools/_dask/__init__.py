"""Beside the flow: the cost frames read on a Dask cluster (``sessiontools.dask``, the
``sessiontools[dask]`` extra). ``sources``: the logs and their partitions, on the client;
``parts``: what a worker does with a partition; ``costs``: the client's side, which puts the
partitions' reads together as the pandas engine does; ``send``: sending from the workers;
``cluster``: the command's connection (``--scheduler ADDRESS|local``), which Ctrl-C closes from
another thread; ``local``: the process ``--scheduler local`` runs its cluster in. Nothing here
is imported by ``import sessiontools``, ``sessiontools otel`` or ``sessiontools cost`` without
``--scheduler``; dask and distributed load only when a read starts.
"""
