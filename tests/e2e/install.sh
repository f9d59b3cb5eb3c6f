#!/usr/bin/env bash
# install.sh BUILD_DIR SOURCE_DIR WORK_DIR - flowbench installed and
# packaged (README.md, "Install"), each copy run from a folder outside the
# source tree with HOME in WORK_DIR:
#  - `cmake --install` of this build into a fresh prefix: every file a
#    shipped suite names is there beside it; the installed flowbench says
#    its version and the source's commit, lists its devices, runs `sweep
#    quick` by name (the case "shipped" reads ../matrices/general.mtx inside
#    the prefix), draws a figure with the installed plot scripts, and
#    refuses an unknown suite name in one line (exit 2);
#  - a man page per command, troff that man renders with the command's
#    options;
#  - the modulefile: `module use` and `module load` put the prefix's bin/
#    first on PATH and its pages on MANPATH, `unload` takes them off;
#  - `cpack -G DEB` (where cpack, dpkg-deb and dpkg-shlibdeps are): no CUDA
#    library in Depends, the command, suites, plots, pages and modulefile in
#    the package; unpacked elsewhere, its flowbench lists devices and plans
#    `sweep quick` on its own matrices.
# The source tree is left as it was. In the build folder cmake --install
# and cpack write install_manifest.txt, as they always do, and nothing else:
# cpack's preinstall step (make all) runs dry, so no binary that the tests
# beside this one run is rebuilt under them.
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
work=$3
rm -rf "$work" && mkdir -p "$work"
work=$(realpath "$work")
fail() { echo "FAIL: $*" >&2; exit 1; }
# a command that ends the script under set -e says where, not only ctest's "Failed"
set -E
trap 'err=$?; [[ $- != *e* ]] || echo "FAIL: install.sh line $LINENO: a command exited $err" >&2' ERR
started=$SECONDS

# The user's environment stays out: no flowbench variable a developer set
# may point the installed binary back at the tree.
export HOME=$work/home
export FLOWBENCH_CACHE_DIR=${FLOWBENCH_CACHE_DIR:-$work/cache}
unset FLOWBENCH_DATA_DIR FLOWBENCH_PLOT_SCRIPTS FLOWBENCH_KERNEL_DIR
mkdir -p "$HOME" "$work/elsewhere"

# what the run must not change: the tree's files, the build's outputs
tree_state() { git -C "$src" status --porcelain --untracked-files=all 2> /dev/null || true; }
build_state() {
  stat -c '%n %Y %s' "$build/flowbench" "$build/libflowbench_core.a" "$build/generated/git_revision.c" \
    "$build"/man/*.1 2> /dev/null || true
}
tree_before=$(tree_state)
build_before=$(build_state)

echo "== cmake --install into a fresh prefix"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" > "$work/install.log" 2>&1 ||
  fail "cmake --install exited $?: $(tail -5 "$work/install.log")"
fb=$prefix/bin/flowbench
data=$prefix/share/flowbench
[ -x "$fb" ] || fail "no $fb"
for f in cases/quick.suite cases/ahmed.geo cases/cylinder.geo cases/data/cavity2d-re100-ghia.dat cases/examples/user-kernel.suite \
         cases/examples/csr_unroll.cl matrices/general.mtx matrices/general.mtx.gz matrices/tiny_cube.su2 \
         matrices/bad/bad_field.mtx plots/stream.gp plots/roofline.gp; do
  [ -s "$data/$f" ] || fail "the install has no share/flowbench/$f"
done
for f in README.md architecture.md scaling.md; do
  [ -s "$prefix/share/doc/flowbench/$f" ] || fail "the install has no share/doc/flowbench/$f"
done
# every file a shipped suite names relative to itself is installed beside it
# (the suites' own folder, so "../matrices/x" resolves as in the tree)
n=0
for suite in "$data"/cases/*.suite "$data"/cases/examples/*.suite; do
  dir=${suite%/*}
  while read -r rel; do
    rel=${rel%%:*} # "../matrices/tiny_cube.su2:block=4": the file
    [ -f "$dir/$rel" ] || fail "${suite#"$prefix"/} names $rel: not installed at ${dir#"$prefix"/}/$rel"
    n=$((n + 1))
  done < <({ grep -oE '(\.\./matrices/[^], "]+|kernel_file: *[^ #]+)' "$suite" || true; } | sed 's/^kernel_file: *//')
done
[ "$n" -ge 10 ] || fail "only $n files named by the installed suites: the suites' paths were not read"
for f in cases/ahmed.msh matrices/fetch.sh; do
  [ ! -e "$data/$f" ] || fail "share/flowbench/$f installed: it is not shipped data"
done
cd "$work/elsewhere"

echo "== --version: the source's commit"
version=$("$fb" --version)
if top=$(git -C "$src" rev-parse --show-toplevel 2> /dev/null) && [ "$(realpath "$top")" = "$src" ]; then
  rev=$(git -C "$src" rev-parse --short=12 HEAD)
  [[ $version =~ ^flowbench\ [0-9]+\.[0-9]+\.[0-9]+\ \($rev(-dirty)?\)$ ]] ||
    fail "--version says '$version', the source is at $rev (a commit since the build? rebuild)"
else
  [[ $version =~ ^flowbench\ [0-9]+\.[0-9]+\.[0-9]+\ \(unknown\)$ ]] ||
    fail "--version says '$version' for a source tree outside git (want unknown)"
fi
release=$(sed -E 's/^flowbench ([^ ]+) .*/\1/' <<< "$version")
revision=$(sed -E 's/.*\((.*)\)$/\1/' <<< "$version")

echo "== devices"
"$fb" devices > devices.txt 2>&1 || fail "devices exited $?: $(cat devices.txt)"
grep -q '^openmp:0' devices.txt || fail "devices lists no openmp:0: $(cat devices.txt)"

echo "== an unknown suite name: one line naming it and where it was looked for, exit 2"
code=0
"$fb" sweep no-such-suite --out y.jsonl > unknown.out 2> unknown.err || code=$?
[ "$code" = 2 ] || fail "sweep no-such-suite exited $code, expected 2: $(cat unknown.err)"
[ "$(wc -l < unknown.err)" = 1 ] || fail "sweep no-such-suite said more than one line: $(cat unknown.err)"
grep -qF "no-such-suite" unknown.err && grep -qF "$data" unknown.err ||
  fail "the error names not the suite and $data: $(cat unknown.err)"
[ ! -s unknown.out ] && [ ! -e y.jsonl ] || fail "sweep no-such-suite wrote output or y.jsonl"

echo "== the lookup's order: ./cases first, then \$FLOWBENCH_DATA_DIR alone when set"
mkdir -p cases mydata/cases
printf 'suite: local-quick\nbackends: [openmp]\nmatrices: [gen:cube:4]\ncases:\n  - kernels: [csr-scalar]\n' > cases/quick.suite
"$fb" sweep quick --dry-run > local.plan 2> local.err || fail "sweep quick with ./cases/quick.suite: $(cat local.err)"
grep -q '^local-quick|' local.plan || fail "sweep quick did not take ./cases/quick.suite first: $(head -3 local.plan)"
sed 's/^suite: local-quick$/suite: mine/' cases/quick.suite > mydata/cases/mine.suite
rm -r cases
FLOWBENCH_DATA_DIR=$PWD/mydata "$fb" sweep mine --dry-run > mine.plan 2> mine.err ||
  fail "sweep mine from \$FLOWBENCH_DATA_DIR: $(cat mine.err)"
grep -q '^mine|' mine.plan || fail "sweep mine planned: $(head -3 mine.plan)"
code=0
FLOWBENCH_DATA_DIR=$PWD/mydata "$fb" sweep quick --dry-run > /dev/null 2> mine.err || code=$?
[ "$code" = 2 ] && grep -qF "no cases/quick.suite in ., $PWD/mydata)" mine.err ||
  fail "with \$FLOWBENCH_DATA_DIR set, quick was looked for elsewhere too (exit $code): $(cat mine.err)"
code=0
FLOWBENCH_DATA_DIR=$PWD/mydata "$fb" plot "$src/tests/data/results/constructed-base.jsonl" --out figs-none > /dev/null 2> plot.err || code=$?
[ "$code" = 2 ] && grep -qF "cannot find the gnuplot scripts (no plots/stream.gp in ., $PWD/mydata)" plot.err ||
  fail "plot without scripts (exit $code): $(cat plot.err)"
rm -r mydata

echo "== sweep quick by name, from another folder"
"$fb" sweep quick --out x.jsonl > sweep.log 2>&1 || fail "sweep quick exited $?: $(tail -5 sweep.log)"
jq -se --arg rev "$revision" 'map(select(.type == "header")) | length > 0 and all(.build.git_revision == $rev)' \
  x.jsonl > /dev/null ||
  fail "x.jsonl's header names another revision than --version's $revision"
shipped() { jq -c 'select(.type == "measurement" and .case == "shipped")' x.jsonl; }
[ "$(shipped | jq -s 'map(select(.backend == "openmp" and .status == "ok")) | length')" = 3 ] ||
  fail "not 3 ok openmp records of the case shipped: $(shipped | jq -c '[.backend, .kernel, .status]')"
shipped | jq -se --arg m "$data/matrices/general.mtx" 'all(.matrix.source == $m)' > /dev/null ||
  fail "the case shipped read $(shipped | jq -r .matrix.source | sort -u), not $data/matrices/general.mtx"

if command -v gnuplot > /dev/null; then
  echo "== plot with the installed scripts"
  "$fb" plot x.jsonl --out figs > plot.log 2>&1 || fail "plot exited $?: $(tail -5 plot.log)"
  ls figs/*.png > /dev/null 2>&1 || fail "plot drew no PNG: $(tail -5 plot.log)"
  cmp -s figs/scripts/stream.gp "$data/plots/stream.gp" || fail "plot did not use $data/plots"
fi

echo "== man pages"
man1=$prefix/share/man/man1
if [ ! -d "$build/man" ]; then
  echo "the build made no man pages (help2man missing): none to check"
  [ ! -e "$man1" ] || fail "no man pages were made, yet $man1 was installed"
else
  commands=$("$fb" --help | sed -n '/^commands:/,/^$/p' | awk 'NF > 1 {print $1}')
  [ "$(wc -w <<< "$commands")" -ge 10 ] || fail "--help lists only: $commands"
  [ -s "$man1/flowbench.1" ] || fail "no flowbench.1"
  for cmd in $commands; do
    page=$man1/flowbench-$cmd.1
    [ -s "$page" ] || fail "no man page flowbench-$cmd.1"
    head -2 "$page" | grep -q "^\.TH FLOWBENCH-${cmd^^} " || fail "$page: no .TH line of flowbench-$cmd"
    grep -qF "flowbench-$cmd" "$man1/flowbench.1" || fail "flowbench.1 does not name flowbench-$cmd"
  done
  grep -qF '\-\-dry\-run' "$man1/flowbench-sweep.1" || fail "flowbench-sweep.1 lacks --dry-run"
  grep -qF 'FLOWBENCH_DATA_DIR' "$man1/flowbench-sweep.1" || fail "flowbench-sweep.1 does not say how SUITE is found"
  if command -v man > /dev/null; then
    # wide and ASCII: no hyphenation, no Unicode hyphens in option names
    LC_ALL=C MANWIDTH=250 man -l "$man1/flowbench-sweep.1" > sweep.man 2> man.err ||
      fail "man -l exited $?: $(cat man.err)"
    grep -q -- '--dry-run' sweep.man && grep -Eq 'flowbench-sweep +- +run +a +suite' sweep.man ||
      fail "man -l rendered no NAME line or --dry-run: $(head -20 sweep.man)"
  fi
fi

echo "== the modulefile"
modulefile=$prefix/share/modulefiles/flowbench/$release
[ -s "$modulefile" ] || fail "no $modulefile"
grep -qxF "set prefix {$prefix}" "$modulefile" || fail "$modulefile names another prefix: $(grep prefix "$modulefile")"
if command -v modulecmd > /dev/null; then
  env -i PATH=/usr/bin:/bin HOME="$HOME" prefix="$prefix" man1="$man1" bash -c '
    set -euo pipefail
    eval "$(modulecmd bash use "$prefix/share/modulefiles")"
    eval "$(modulecmd bash load flowbench)"
    [[ $PATH == "$prefix/bin:"* ]] || { echo "PATH after load: $PATH"; exit 1; }
    [ "$(command -v flowbench)" = "$prefix/bin/flowbench" ] || { echo "flowbench is $(command -v flowbench)"; exit 1; }
    flowbench --version > /dev/null
    [[ ${MANPATH-} == "$prefix/share/man:"* ]] || { echo "MANPATH after load: ${MANPATH-unset}"; exit 1; }
    if [ -d "$man1" ] && command -v man > /dev/null; then
      [ "$(man -w flowbench-sweep)" = "$man1/flowbench-sweep.1" ] || { echo "man -w: $(man -w flowbench-sweep)"; exit 1; }
    fi
    eval "$(modulecmd bash unload flowbench)"
    [[ $PATH != *"$prefix"* ]] || { echo "PATH after unload: $PATH"; exit 1; }
  ' > module.log 2>&1 || fail "module use/load/unload: $(cat module.log)"
else
  echo "no modulecmd (Debian: environment-modules): the modulefile is not loaded"
fi

echo "== cpack -G DEB"
if command -v cpack > /dev/null && command -v dpkg-deb > /dev/null && command -v dpkg-shlibdeps > /dev/null; then
  # MAKEFLAGS=-n: the preinstall step cpack runs first (make all) only
  # says what it would do; the package is made of the build as it is
  MAKEFLAGS=-n cpack --config "$build/CPackConfig.cmake" -G DEB -B "$work/pkg" > pkg.log 2>&1 ||
    fail "cpack exited $?: $(tail -5 pkg.log)"
  deb=$(ls "$work"/pkg/flowbench_*.deb)
  dpkg-deb -I "$deb" > deb.info
  depends=$(dpkg-deb -f "$deb" Depends)
  grep -q 'libc6' <<< "$depends" || fail "Depends has no libc6 (dpkg-shlibdeps did not run?): $depends"
  ! grep -qiE 'cuda|nvrtc|cusparse|nvidia|petsc' <<< "$depends" || fail "Depends names an optional library: $depends"
  grep -q 'gnuplot-nox' <<< "$(dpkg-deb -f "$deb" Recommends)" || fail "Recommends lacks gnuplot-nox: $(cat deb.info)"
  grep -q 'pocl-opencl-icd' <<< "$(dpkg-deb -f "$deb" Recommends)" || fail "Recommends lacks pocl-opencl-icd"
  dpkg-deb -c "$deb" | awk '{print $6}' > deb.contents
  for f in ./usr/bin/flowbench ./usr/share/flowbench/cases/quick.suite ./usr/share/flowbench/matrices/general.mtx \
           ./usr/share/flowbench/plots/stream.gp ./usr/share/doc/flowbench/README.md \
           "./usr/share/modulefiles/flowbench/$release"; do
    grep -qxF "$f" deb.contents || fail "the package lacks $f"
  done
  if [ -d "$build/man" ]; then
    for f in flowbench.1 flowbench-sweep.1 flowbench-devices.1; do
      grep -qxF "./usr/share/man/man1/$f" deb.contents || fail "the package lacks its man page $f"
    done
  fi
  root=$work/deb-root
  dpkg-deb -x "$deb" "$root"
  grep -qxF "set prefix {/usr}" "$root/usr/share/modulefiles/flowbench/$release" ||
    fail "the packaged modulefile names another prefix than /usr: $(grep prefix "$root/usr/share/modulefiles/flowbench/$release")"
  mkdir -p "$work/elsewhere2" && cd "$work/elsewhere2"
  [ "$("$root/usr/bin/flowbench" --version)" = "$version" ] || fail "the packaged flowbench is another build"
  "$root/usr/bin/flowbench" devices > devices.txt 2>&1 || fail "packaged devices exited $?: $(cat devices.txt)"
  grep -q '^openmp:0' devices.txt || fail "packaged devices lists no openmp:0"
  "$root/usr/bin/flowbench" sweep quick --dry-run > plan.txt 2> plan.err ||
    fail "packaged sweep quick --dry-run exited $?: $(cat plan.err)"
  grep -qF "|shipped|$root/usr/share/flowbench/matrices/general.mtx|" plan.txt ||
    fail "the packaged quick suite's case shipped does not read its own matrices: $(grep shipped plan.txt | head -3)"
  echo "package $(stat -c %s "$deb") bytes; Depends: $depends"
else
  echo "no cpack, dpkg-deb or dpkg-shlibdeps (Debian: cmake, dpkg-dev): the package is not built"
fi

[ "$(tree_state)" = "$tree_before" ] || fail "the source tree changed: $(diff <(echo "$tree_before") <(tree_state))"
[ "$(build_state)" = "$build_before" ] ||
  fail "the build's outputs changed under the test: $(diff <(echo "$build_before") <(build_state))"
echo "install.sh: all checks passed in $((SECONDS - started)) s"
