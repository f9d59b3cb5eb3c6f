# flowbench_sweep.py - ReFrame regression tests for flowbench
# (https://reframe-hpc.readthedocs.io, ReFrame 4): build flowbench with
# CMake, run `flowbench sweep cases/quick.suite` on one process and on
# several MPI ranks, check the summary line, and report the stream triad and
# one named configuration's GB/s against references per system.
# How to run it and add a reference: README.md beside this file.
import csv
import json
import os

import reframe as rfm
import reframe.utility.sanity as sn
import reframe.utility.typecheck as typ
from reframe.core.builtins import (fixture, performance_function, run_after, run_before, sanity_function,
                                   variable)

# This file lives in scripts/reframe/ of the flowbench tree.
FLOWBENCH_TREE = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


class flowbench_build(rfm.CompileOnlyRegressionTest):
    '''flowbench built with CMake from the tree this file is in, into the
    stage directory (nothing is copied, the tree is left as it is).'''

    descr = 'flowbench built with CMake'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    build_system = 'CMake'
    sourcesdir = None
    tree = variable(str, value=FLOWBENCH_TREE)
    # e.g. -S flowbench_build.cmake_options=-DFLOWBENCH_CUDA=OFF
    cmake_options = variable(typ.List[str], value=['-DCMAKE_BUILD_TYPE=Release'])
    build_jobs = variable(int, value=8)
    # -S flowbench_build.prebuilt=/opt/flowbench/bin/flowbench: a flowbench
    # already built or installed (a module's) is linked in, nothing compiled
    prebuilt = variable(str, value='')

    @run_before('compile')
    def configure(self):
        if self.prebuilt:
            self.build_system = 'CustomBuild'
            self.build_system.commands = ['mkdir -p build', f'ln -sf {os.path.abspath(self.prebuilt)} build/flowbench']
            return
        self.build_system.configuredir = self.tree  # cmake -S TREE -B STAGE/build
        self.build_system.builddir = os.path.join(self.stagedir, 'build')
        self.build_system.config_opts = list(self.cmake_options)
        self.build_system.max_concurrency = self.build_jobs
        self.build_system.flags_from_environ = False  # the project's own flags (-O3, -march)

    @sanity_function
    def built(self):
        return sn.assert_true(os.path.isfile(os.path.join(self.stagedir, 'build', 'flowbench')),
                              msg='no flowbench binary in build/')


class flowbench_build_mpi(flowbench_build):
    '''The same with MPI (FLOWBENCH_MPI=ON: configure fails naming what is
    missing rather than building a binary that refuses several ranks).'''

    cmake_options = ['-DCMAKE_BUILD_TYPE=Release', '-DFLOWBENCH_MPI=ON']


@sn.deferrable
def records_of(path):
    '''The measurement records of a results file.'''
    with open(path) as f:
        recs = [json.loads(line) for line in f if line.strip()]
    return [r for r in recs if r.get('type') == 'measurement']


@sn.deferrable
def unchecked(path):
    '''The records that ran but whose result was not checked against the
    reference and found right (every timed result is; pruned ones did not
    run): their sweep keys.'''
    return [r.get('sweep_key', r.get('kernel')) for r in records_of(path)
            if r.get('status') != 'pruned' and not (r.get('status') == 'ok' and r.get('check', {}).get('ok'))]


@sn.deferrable
def gbs_of(path, **match):
    '''The largest GB/s of the ok rows of `flowbench export --csv` whose
    columns equal match (several rows: the best of the points).'''
    with open(path, newline='') as f:
        rows = [r for r in csv.DictReader(f)
                if r['status'] == 'ok' and all(r[k] == v for k, v in match.items() if v)]
    if not rows:
        raise sn.SanityError(f'{path}: no ok record with {match}')
    return max(float(r['gbs']) for r in rows)


@sn.deferrable
def records_with(path, field, value):
    '''How many measurement records of a results file have field == value.'''
    return sum(1 for r in records_of(path) if r.get(field) == value)


@rfm.simple_test
class flowbench_quick_sweep(rfm.RunOnlyRegressionTest):
    '''cases/quick.suite on one process: every configuration recorded, none
    failed or wrong; the stream triad and a named configuration's GB/s.'''

    descr = 'flowbench sweep cases/quick.suite'
    valid_systems = ['*']
    valid_prog_environs = ['*']
    flowbench = fixture(flowbench_build, scope='environment')
    num_tasks = 1
    # -S backend=cuda (each rank on its own GPU under MPI), opencl, openmp
    backend = variable(str, value='openmp')
    suite = variable(str, value='cases/quick.suite')
    # The named configuration of the performance variable `config`: a case,
    # a kernel and its parameters as `flowbench export` writes them ('' for
    # the best of the kernel's points).
    config_case = variable(str, value='csr')
    config_kernel = variable(str, value='csr-vector')
    config_params = variable(str, value='VECTOR_SIZE=8 WG_SIZE=128')
    results = 'quick.jsonl'
    keep_files = ['quick.jsonl', 'results.csv']  # for flowbench compare of two runs
    tags = {'flowbench', 'benchmark'}
    # value, lower and upper bound (fractions; None: unbounded), unit. '*' is
    # every system: no bound, the figures are logged. A centre adds its own
    # under 'SYSTEM:PARTITION' (README.md).
    reference = {
        '*': {
            'triad': (0, None, None, 'GB/s'),
            'config': (0, None, None, 'GB/s'),
            'best': (0, None, None, 'GB/s'),
        },
    }
    # A reference for this run on any system, from the command line (-S
    # triad_ref=GBS -S best_ref=GBS), above the file's: lower bound
    # ref_lower, a fraction (-0.2: fail below 80%); 0 leaves the file's.
    triad_ref = variable(float, value=0.0)
    best_ref = variable(float, value=0.0)
    ref_lower = variable(float, value=-0.2)

    @run_after('setup')
    def set_command(self):
        binary = os.path.join(self.flowbench.stagedir, 'build', 'flowbench')
        self.executable = binary
        self.executable_opts = ['sweep', os.path.join(self.flowbench.tree, self.suite), '--backend', self.backend,
                                '--out', self.results]
        # the exit status as the job's output says it: a scheduler that polls
        # with squeue (no accounting) gives ReFrame no exit code of its own
        self.postrun_cmds = ['echo "flowbench exited $?"', f'{binary} export {self.results} --csv --out results.csv']
        self.env_vars['OMP_PROC_BIND'] = 'close'

    @run_before('performance')
    def references_from_options(self):
        for name, value in (('triad', self.triad_ref), ('best', self.best_ref)):
            if value > 0:
                self.reference[f'{self.current_partition.fullname}:{name}'] = (value, self.ref_lower, None, 'GB/s')

    def summary_pattern(self):
        return (r'^sweep \S+: \d+ configurations(?: on \d+ ranks)?: \d+ ok, 0 wrong result, 0 failed, '
                r'\d+ pruned')

    @sanity_function
    def all_recorded(self):
        return sn.all([
            sn.assert_found(self.summary_pattern(), self.stderr, msg='no summary line, or a configuration failed'),
            sn.assert_found(rf'^sweep \S+: results in {self.results}$', self.stderr,
                            msg='the sweep stopped before the end of its plan'),
            sn.assert_found(r'^flowbench exited 0$', self.stdout, msg='flowbench exited non-zero'),
            sn.assert_eq(unchecked(os.path.join(self.stagedir, self.results)), [],
                         msg='records not checked against the reference, or wrong: {0}'),
        ])

    @performance_function('GB/s')
    def triad(self):
        return gbs_of(os.path.join(self.stagedir, 'results.csv'), benchmark='stream', kernel='triad')

    @performance_function('GB/s')
    def best(self):
        '''The best GB/s of any SpMV configuration of the sweep.'''
        return gbs_of(os.path.join(self.stagedir, 'results.csv'), benchmark='spmv')

    @performance_function('GB/s')
    def config(self):
        return gbs_of(os.path.join(self.stagedir, 'results.csv'), case=self.config_case, kernel=self.config_kernel,
                      params=self.config_params)


@rfm.simple_test
class flowbench_quick_sweep_mpi(flowbench_quick_sweep):
    '''The same suite dealt out to several MPI ranks (the partition's
    launcher: srun, mpirun): one results file, every record saying its
    rank and host.'''

    descr = 'flowbench sweep cases/quick.suite on several MPI ranks'
    flowbench = fixture(flowbench_build_mpi, scope='environment')
    ranks = variable(int, value=2)

    @run_after('init')
    def set_ranks(self):
        self.num_tasks = self.ranks

    @run_after('setup')
    def kill_on_bad_exit(self):
        # a rank that dies ends the step at once (docs/scaling.md)
        if self.job.launcher.registered_name == 'srun':
            self.job.launcher.options += ['--kill-on-bad-exit=1']

    @sanity_function
    def all_recorded(self):
        path = os.path.join(self.stagedir, self.results)
        return sn.all([
            sn.assert_found(rf'^sweep \S+: \d+ configurations on {self.ranks} ranks: ', self.stderr,
                            msg=f'no summary line of {self.ranks} ranks'),
            sn.assert_found(self.summary_pattern(), self.stderr, msg='a configuration failed'),
            sn.assert_found(rf'^sweep \S+: results in {self.results}$', self.stderr),
            sn.assert_eq(unchecked(path), [], msg='records not checked against the reference, or wrong: {0}'),
            sn.assert_eq(records_with(path, 'ranks', self.ranks), records_with(path, 'type', 'measurement'),
                         msg='a record does not say its rank'),
            sn.assert_false(os.path.exists(os.path.join(self.stagedir, f'{self.results}.rank-1')),
                            msg='rank files were not joined'),
        ])
