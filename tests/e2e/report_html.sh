#!/usr/bin/env bash
# report_html.sh FLOWBENCH SOURCE_DIR WORKDIR - `report --html` in a real
# browser (issue 36): the figures of tests/data/run drawn, the page written,
# then headless Chromium
#  1. loads it and runs its own check script, which counts the <svg>
#     figures and tables that rendered against those the page holds and
#     writes the verdict into the DOM (<p id="fb-check">) and the title:
#     read back with --dump-dom, it must say OK for every one;
#  2. takes a screenshot, which must not be blank (one colour): many
#     distinct pixel values (tests/e2e/png_colours.py);
#  3. the page is self-contained: no address outside it (http, //), no
#     external script, style sheet or image, and a table sorts by a click
#     (the inline script's handler is there).
# Skipped (exit 77) where no Chromium is installed (scripts/setup.sh
# installs Debian's chromium).
set -euo pipefail
bin=$1; src=$2; dir=$3
rm -rf "$dir"
mkdir -p "$dir"
fail() { echo "FAIL: $*"; exit 1; }
browser=""
for b in "${FLOWBENCH_CHROMIUM:-}" chromium chromium-browser google-chrome; do
  [ -n "$b" ] && command -v "$b" > /dev/null && { browser=$b; break; }
done
[ -n "$browser" ] || { echo "skipped: no Chromium installed (scripts/setup.sh installs it)"; exit 77; }

"$bin" plot "$src/tests/data/run" --out "$dir/figures" --scripts "$src/plots" > "$dir/plot.txt" ||
  fail "plot: $(cat "$dir/plot.txt")"
"$bin" report "$src/tests/data/run" --plots "$dir/figures" --html "$dir/report.html" || fail "report --html: exit $?"
page=$dir/report.html
figures=$(grep -c '^<figure>' "$page")
[ "$figures" -ge 10 ] || fail "only $figures figures inline"
grep -q '<svg' "$page" || fail "no inline SVG"

echo "== 3. self-contained"
! grep -Eiq '(src|href)="(https?:)?//' "$page" || fail "the page refers to an address outside it"
! grep -Eiq '<(link|img|iframe)\b|<script[^>]+src=' "$page" || fail "the page loads a file from outside"
grep -q "addEventListener('click'" "$page" || fail "no sorting script"

# Headless Chromium: a profile of its own (the test may run as root, so --no-sandbox), no GPU.
run_browser() {
  timeout 90 "$browser" --headless --no-sandbox --disable-gpu --hide-scrollbars --no-first-run \
    --user-data-dir="$dir/profile" --virtual-time-budget=5000 "$@" "file://$page" 2> "$dir/browser.log"
}
echo "== 1. the page's own check, read back from the DOM"
run_browser --dump-dom > "$dir/dom.html" || fail "chromium --dump-dom: exit $? ($(tail -3 "$dir/browser.log"))"
verdict=$(grep -o '<p id="fb-check">[^<]*</p>' "$dir/dom.html" | sed 's/<[^>]*>//g')
echo "page: $verdict"
[[ $verdict =~ ^OK:\ ([0-9]+)\ of\ ([0-9]+)\ figures,\ ([0-9]+)\ of\ ([0-9]+)\ tables\ rendered$ ]] ||
  fail "the page's check: '$verdict'"
[ "${BASH_REMATCH[1]}" -eq "$figures" ] || fail "the check counted ${BASH_REMATCH[1]} figures, the page has $figures"
[ "${BASH_REMATCH[3]}" -ge 10 ] || fail "only ${BASH_REMATCH[3]} tables rendered"
grep -q '<title>OK: ' "$dir/dom.html" || fail "the title does not carry the verdict"

echo "== 2. a screenshot that is not blank"
run_browser --screenshot="$dir/shot.png" --window-size=1024,768 > /dev/null || fail "chromium --screenshot: exit $?"
colours=$(python3 "$src/tests/e2e/png_colours.py" "$dir/shot.png") || fail "cannot read the screenshot"
echo "screenshot: $colours distinct pixel values"
[ "$colours" -ge 20 ] || fail "the screenshot is blank or nearly ($colours colours)"
echo "report_html e2e: all checks passed"
