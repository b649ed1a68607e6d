#!/bin/sh
# tests/cli/hist_cmp.py, the history comparison of the backend parity tests,
# must pass what is equal to round-off and fail what is not.
n=0; tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
ok()  { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); echo "not ok $n - $1"; }
cat >"$tmp/a.csv" <<'CSV'
step,time,kinetic,strain,external_work,total,wall_s
0,0,0,0,0,0,0.1
1,0.1,2.5,1.5,4,1e-15,0.2
2,0.2,3,1,4,-2e-15,0.3
CSV
# B: kinetic and strain moved by 4e-11 of the energies, total by the same: within 1e-9 of its terms
sed -e 's/^1,0.1,2.5,1.5,4,1e-15/1,0.1,2.5000000001,1.4999999999,4,1.2e-15/' -e 's/,0\.3$/,9.9/' "$tmp/a.csv" >"$tmp/b.csv"
# C: kinetic off by 1e-6 relative
sed -e 's/^2,0.2,3,/2,0.2,3.000003,/' "$tmp/a.csv" >"$tmp/c.csv"
# D: total off by 1e-6 of the energies (the three terms unchanged: an inconsistent row)
sed -e 's/^2,0.2,3,1,4,-2e-15/2,0.2,3,1,4,8e-6/' "$tmp/a.csv" >"$tmp/d.csv"
head -3 "$tmp/a.csv" >"$tmp/e.csv"
h() { python3 tests/cli/hist_cmp.py "$@"; }
m=$(h "$tmp/a.csv" "$tmp/a.csv" same) && echo "$m" | grep -q bitwise && ok "equal files: $m" || nok "equal files: $m"
m=$(h "$tmp/a.csv" "$tmp/b.csv" roundoff) && ! echo "$m" | grep -q bitwise && ok "round-off of the energies passes (wall_s skipped): $m" \
  || nok "round-off of the energies: $m"
m=$(h "$tmp/a.csv" "$tmp/c.csv" kinetic) && nok "a 1e-6 difference in kinetic passed: $m" || ok "a 1e-6 difference in kinetic fails: $m"
m=$(h "$tmp/a.csv" "$tmp/d.csv" total) && nok "a 1e-6 difference in total passed: $m" || ok "a 1e-6 difference in total fails: $m"
m=$(h "$tmp/a.csv" "$tmp/e.csv" rows) && nok "a missing row passed: $m" || ok "a missing row fails: $m"
echo "1..$n"
