#!/bin/sh
# The documentation stands on its own:
#   (a) every relative Markdown link in README.md and docs/*.md names a file
#       or folder that exists (links to web addresses and to anchors of the
#       same page are not checked; code blocks and code spans are skipped);
#   (b) no file of the repository (tracked, or new and not ignored) points to
#       the team's notes outside it: their folder, or the names of the notes
#       that the repository's own documents replace (OUTSIDE below).
# The checkers first run on planted bad input (a dead link, a file citing an
# outside note) and must flag it, and must not flag fuzz/seeds/ paths.
# POSIX sh, run from anywhere; prints TAP.
here=$(cd "$(dirname "$0")/../.." && pwd)
T=$(mktemp -d "${TMPDIR:-/tmp}/crdyn-docs.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT INT TERM
n=0; nfail=0
ok()     { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); nfail=$((nfail + 1)); echo "not ok $n - $1"; }

# The outside references, as one extended regular expression (a bracket
# expression in each name keeps this line from matching itself).
OUTSIDE='/work/share[d]|\.\./share[d]|CASE_FORMA[T]|THEOR[Y]\.md|DESIG[N]\.md|TOOLCHAI[N]\.md|STYL[E]\.md|peer[s]\.md|ref_script[s]|(^|[^/[:alnum:]_.-])seed[s]/'

# links FILE: the relative link targets of a Markdown file, one per line,
# without their #fragment or title.
links() {
  awk '
    /^[ \t]*```/ { fence = !fence; next }
    fence { next }
    {
      line = $0
      gsub(/`[^`]*`/, "", line)               # code spans
      while (match(line, /\]\([^)]*\)/)) {
        t = substr(line, RSTART + 2, RLENGTH - 3)
        line = substr(line, RSTART + RLENGTH)
        sub(/^[ \t]*</, "", t); sub(/>[ \t]*$/, "", t)
        sub(/[ \t]+".*"$/, "", t)             # a title
        if (t ~ /^[a-zA-Z][a-zA-Z0-9+.-]*:/) continue   # http:, mailto:, ...
        sub(/#.*/, "", t)
        if (t == "") continue                 # an anchor of the same page
        print t
      }
    }' "$1"
}

# dead_links FILE: prints "FILE: TARGET" for each target that does not exist
# (relative to the file's folder); status 1 if there is one.
dead_links() {
  d=$(dirname "$1"); bad=0
  for t in $(links "$1"); do
    if [ ! -e "$d/$t" ]; then echo "$1: $t"; bad=1; fi
  done
  return $bad
}

# outside FILE...: prints "FILE:LINE: text" for every line that matches
# OUTSIDE (text files only); status 0 if any matched.
outside() {
  grep -I -n -E "$OUTSIDE" "$@" 2>/dev/null
}

# -- the checkers catch planted bad input ------------------------------------
mkdir -p "$T/docs"
printf '# t\n\nSee [the theory](theory.md) and [a web page](https://example.org/x).\n' >"$T/docs/ok.md"
: >"$T/docs/theory.md"
printf '# t\n\nSee [nothing](no_such_file.md#part) and [ok](ok.md).\n' >"$T/docs/dead.md"
if dead_links "$T/docs/ok.md" >/dev/null && ! dead_links "$T/docs/dead.md" >"$T/dead.txt" &&
   grep -q 'no_such_file.md$' "$T/dead.txt" && [ "$(wc -l <"$T/dead.txt")" -eq 1 ]; then
  ok "the link checker flags a planted dead link and only that one"
else
  not_ok "the link checker flags a planted dead link and only that one"; sed 's/^/# /' "$T/dead.txt"
fi
t=THEORY; printf '/* strains (%s.md section 2) */\n' "$t" >"$T/cites.c"
printf '# replay the corpus of fuzz/seeds/json and tests/fuzz\n' >"$T/clean.sh"
if outside "$T/cites.c" >/dev/null && ! outside "$T/clean.sh" >/dev/null; then
  ok "the reference checker flags a planted citation of an outside note, not fuzz/seeds/"
else
  not_ok "the reference checker flags a planted citation of an outside note, not fuzz/seeds/"
fi

# -- (a) links in README.md and docs/*.md -------------------------------------
cd "$here" || exit 1
for f in README.md docs/*.md; do
  [ -f "$f" ] || continue
  k=$(links "$f" | wc -l)
  if dead_links "$f" >"$T/dead.txt"; then
    ok "$f: its $k relative links resolve"
  else
    not_ok "$f: dead relative links"; sed 's/^/# /' "$T/dead.txt"
  fi
done

# -- (b) no file points outside the repository --------------------------------
if git -C "$here" rev-parse --git-dir >/dev/null 2>&1; then
  git -C "$here" ls-files -co --exclude-standard -z >"$T/files"
else
  find . -type f ! -path './.git/*' ! -path './build*' -print0 >"$T/files"
fi
xargs -0 sh -c 'for f; do [ -f "$f" ] && printf "%s\n" "$f"; done' sh <"$T/files" >"$T/list"
count=$(wc -l <"$T/list")
: >"$T/hits"
while IFS= read -r f; do outside "$f" | sed "s|^|$f:|" >>"$T/hits"; done <"$T/list"
if [ -s "$T/hits" ]; then
  not_ok "no file of the repository points to notes outside it ($(wc -l <"$T/hits") lines)"
  sed 's/^/# /' "$T/hits" | head -40
else
  ok "no file of the repository ($count files) points to notes outside it"
fi

echo "1..$n"
[ "$nfail" -eq 0 ]
