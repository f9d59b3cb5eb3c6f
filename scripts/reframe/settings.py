# settings.py - a ReFrame 4 configuration for this host, in two partitions:
# `local` runs the tests as processes here; `slurm` submits them with sbatch
# and starts them with srun (ReFrame's Slurm scheduler, polling with squeue,
# and its srun launcher), as a site's partition does. tests/e2e/reframe.sh runs flowbench_sweep.py with
# it on both, the second through a one-host cluster
# (scripts/slurm/local-cluster.sh, SLURM_CONF set); a site copies the
# `slurm` partition into its own configuration, adding its `access`
# (--partition, --account) and, for GPUs, resources (README.md here).
site_configuration = {
    'systems': [
        {
            'name': 'flowbench-host',
            'descr': 'this host, directly or through Slurm',
            'hostnames': ['.*'],
            'partitions': [
                {
                    'name': 'local',
                    'descr': 'processes on this host',
                    'scheduler': 'local',
                    'launcher': 'local',
                    'environs': ['host'],
                    'max_jobs': 1,
                },
                {
                    'name': 'slurm',
                    'descr': 'jobs through Slurm (sbatch, srun)',
                    # sbatch to submit, squeue to poll: the one-host
                    # cluster keeps no accounting (no slurmdbd), which
                    # ReFrame's 'slurm' scheduler polls with sacct; a site
                    # with accounting may write 'slurm' here
                    'scheduler': 'squeue',
                    'launcher': 'srun',
                    'environs': ['host'],
                    'max_jobs': 4,
                    'access': [],
                },
            ],
        },
    ],
    'environments': [
        {'name': 'host', 'cc': 'cc', 'cxx': 'c++', 'ftn': ''},
    ],
}
