#!/usr/bin/env bash
# Every example README.md shows runs against the built binary, and every
# relative link in README.md and docs/*.md resolves (issue 19).
# Usage: test_readme.sh TPLAN_BINARY TESTS_DIR
#
# The README's code blocks follow these conventions (docs/README.md repeats
# them for whoever edits the README):
#   ```sh       every line is a shell command (a trailing \ continues it, #
#               starts a comment), run with bash in one scratch directory
#               where `tplan` is the built binary and examples/, scripts/
#               and tests/ are the repository's; it must exit 0.
#   ```console  a line starting with "$ " is a command, as in sh blocks; the
#               lines after it, up to the next "$ " or the block's end, are
#               what it prints on stdout, compared line by line (trailing
#               blanks ignored), where a line "..." stands for any number
#               of lines.
#   ```lua      a script. A first line "-- NAME.lua..." saves it as NAME.lua
#               for a later command, which must run it; any other block is
#               run at once with `tplan run`.
# Blocks run in the order the README shows them, so a command gets the
# files earlier commands wrote. Any other kind of block fails the test:
# the README shows nothing the test cannot run. Quick start's two commands
# are checked word for word; its bundled example is run, and CI (.ci/run)
# must run the second command. While the binary has no `tplan report`
# command, the README's report lines (`tplan report`, `--report`) are
# skipped, and only those, each with a line saying so.
# Besides: README.md has at most 300 lines, every module function of the
# Lua API appears in docs/lua-api.md and every command of `tplan --help` in
# docs/cli.md.
set -u
# shellcheck source=tests/harness.sh
. "$(dirname "$0")/harness.sh"
root=$(realpath "$dir/..")
readme=$root/README.md

quick1='scripts/setup.sh && scripts/build.sh && examples/fit_llama3_8b.sh'
quick2='scripts/setup.sh && scripts/test.sh'

# the scratch directory: tplan on PATH, the repository's inputs beside
mkdir -p "$tmp/bin" "$tmp/work"
ln -s "$tplan" "$tmp/bin/tplan"
for d in examples scripts tests; do ln -s "$root/$d" "$tmp/work/$d"; done
export PATH="$tmp/bin:$PATH" TPLAN="$tplan"

have_report=1
"$tplan" report --help >/dev/null 2>&1 || have_report=0
skipped=0
ran=()      # every command run, for the check that saved scripts are used
saved=()    # NAME.lua files saved from lua blocks, with their README line

is_report() { [[ $1 =~ (^|[[:space:]\;\&\|\(])tplan[[:space:]]+report([[:space:]]|$) || $1 =~ [[:space:]]--report([[:space:]=]|$) ]]; }

# run_cmd LINE COMMAND: run it in the scratch directory; stdout in $tmp/out
run_cmd() {
    local at=$1 cmd=$2
    if [ "$have_report" = 0 ] && is_report "$cmd"; then
        printf 'skipped (this tplan has no report command): README.md:%s: %s\n' "$at" "$cmd"
        skipped=$((skipped + 1))
        : >"$tmp/out"
        return 2
    fi
    ran+=("$cmd")
    (cd "$tmp/work" && timeout 120 bash -o pipefail -c "$cmd") >"$tmp/out" 2>"$tmp/err"
    local rc=$?
    if [ "$rc" != 0 ]; then
        bad "README.md:$at: '$cmd' exited $rc: $(head -c 600 "$tmp/err")"
        return 1
    fi
    ok
    return 0
}

# compare_output LINE: $tmp/out against the expected lines in $tmp/want
compare_output() {
    local at=$1
    local -a want got
    mapfile -t want < <(sed 's/[[:space:]]*$//' "$tmp/want")
    mapfile -t got < <(tr -d '\r' <"$tmp/out" | sed 's/[[:space:]]*$//')
    local nw=${#want[@]} ng=${#got[@]} pos=0 i=0 j k lead=0 trail=0
    [ "$nw" -gt 0 ] && [ "${want[0]}" = "..." ] && lead=1
    [ "$nw" -gt 0 ] && [ "${want[nw - 1]}" = "..." ] && trail=1
    # segments of literal lines between "..." lines, matched left to right:
    # the first one at the start unless "..." leads, the last one at the
    # end unless "..." trails, the others at their first place after the
    # one before (the leftmost place never loses a match further on)
    local -a starts=() lens=()
    while [ "$i" -lt "$nw" ]; do
        if [ "${want[i]}" = "..." ]; then i=$((i + 1)); continue; fi
        j=$i
        while [ "$j" -lt "$nw" ] && [ "${want[j]}" != "..." ]; do j=$((j + 1)); done
        starts+=("$i"); lens+=($((j - i)))
        i=$j
    done
    local ns=${#starts[@]} s at_ok found
    seg_at() { # seg_at SEGMENT POSITION: does segment s match got at pos?
        local st=${starts[$1]} ln=${lens[$1]} q
        [ $(($2 + ln)) -le "$ng" ] || return 1
        for ((q = 0; q < ln; q++)); do
            [ "${want[st + q]}" = "${got[$2 + q]}" ] || return 1
        done
    }
    at_ok=1
    for ((s = 0; s < ns; s++)); do
        if [ "$s" = 0 ] && [ "$lead" = 0 ]; then
            seg_at 0 0 || { at_ok=0; break; }
            pos=${lens[0]}
        elif [ "$s" = $((ns - 1)) ] && [ "$trail" = 0 ]; then
            k=$((ng - lens[s]))
            { [ "$k" -ge "$pos" ] && seg_at "$s" "$k"; } || { at_ok=0; break; }
            pos=$ng
        else
            found=0
            for ((k = pos; k + lens[s] <= ng; k++)); do
                if seg_at "$s" "$k"; then found=1; break; fi
            done
            [ "$found" = 1 ] || { at_ok=0; break; }
            pos=$((k + lens[s]))
        fi
        if [ "$s" = $((ns - 1)) ] && [ "$trail" = 0 ] && [ "$pos" != "$ng" ]; then at_ok=0; fi
    done
    if [ "$at_ok" = 1 ]; then
        ok
    else
        bad "README.md:$at: the output shown differs from tplan's (shown <, printed >):"
        diff <(printf '%s\n' "${want[@]}") <(printf '%s\n' "${got[@]}") | head -n 40
    fi
}

# join_continued FIRST: the block's lines in $tmp/block -> commands, one
# per line as "LINE<TAB>COMMAND" (a trailing \ joins the next line, as the
# shell would)
join_continued() {
    awk -v first="$1" '
        { n = first + NR - 1; line = $0 }
        !cont { at = n; cmd = "" }
        { cont = sub(/\\$/, "", line); cmd = cmd line }
        !cont { print at "\t" cmd }
        END { if (cont) print at "\t" cmd }' "$tmp/block"
}

run_sh_block() {
    local first=$1 at cmd
    while IFS=$'\t' read -r at cmd; do
        [[ $cmd =~ ^[[:space:]]*(#|$) ]] && continue
        case $cmd in
        "$quick1")
            quick_seen1=1
            # setup and build are what the suite itself ran; the example runs
            run_cmd "$at" 'bash examples/fit_llama3_8b.sh >/dev/null' ;;
        "$quick2")
            quick_seen2=1
            if grep -qxF "$quick2" "$root/.ci/run"; then ok; else bad "README.md:$at: .ci/run does not run '$quick2'"; fi ;;
        scripts/setup.sh*)
            bad "README.md:$at: Quick start shows only '$quick1' and '$quick2', got '$cmd'" ;;
        *) run_cmd "$at" "$cmd" ;;
        esac
    done < <(join_continued "$first")
}

run_console_block() {
    local first=$1
    local n=$first line cmd="" cmd_at="" in_cmd=0
    : >"$tmp/want"
    flush() {
        [ -n "$cmd_at" ] || return 0
        # no output shown: nothing to compare
        if run_cmd "$cmd_at" "$cmd" && [ -s "$tmp/want" ]; then compare_output "$cmd_at"; fi
        : >"$tmp/want"
    }
    while IFS= read -r line; do
        if [ "$in_cmd" = 1 ]; then
            cmd+=$'\n'"$line"
        elif [[ $line == '$ '* ]]; then
            flush
            cmd=${line#\$ }; cmd_at=$n
        elif [ -n "$cmd_at" ]; then
            printf '%s\n' "$line" >>"$tmp/want"
        else
            bad "README.md:$n: a console block must start with a '\$ ' command line"
        fi
        if { [ "$in_cmd" = 1 ] || [[ $line == '$ '* ]]; } && [[ $line == *\\ ]]; then
            in_cmd=1
        else
            in_cmd=0
        fi
        n=$((n + 1))
    done <"$tmp/block"
    flush
}

run_lua_block() {
    local first=$1 name
    name=$(head -n1 "$tmp/block" | sed -n 's/^-- \([A-Za-z0-9_.-]*\.lua\).*/\1/p')
    if [ -n "$name" ]; then
        cp "$tmp/block" "$tmp/work/$name"
        saved+=("$first:$name")
    else
        cp "$tmp/block" "$tmp/work/readme_block_$first.lua"
        run_cmd "$first" "tplan run readme_block_$first.lua >/dev/null"
    fi
}

# --- the README's blocks, in order -----------------------------------------
quick_seen1=0
quick_seen2=0
n=0 in_block=0 lang="" start=0
while IFS= read -r line || [ -n "$line" ]; do
    n=$((n + 1))
    if [ "$in_block" = 0 ]; then
        if [[ $line =~ ^[[:space:]]*\`\`\`(.*)$ ]]; then
            lang=${BASH_REMATCH[1]}; in_block=1; start=$((n + 1)); : >"$tmp/block"
        fi
        continue
    fi
    if [[ $line =~ ^[[:space:]]*\`\`\`[[:space:]]*$ ]]; then
        in_block=0
        case $lang in
        sh) run_sh_block "$start" ;;
        console) run_console_block "$start" ;;
        lua) run_lua_block "$start" ;;
        *) bad "README.md:$((start - 1)): a '\`\`\`$lang' block: the README shows only sh, console and lua blocks, which this test runs" ;;
        esac
        continue
    fi
    printf '%s\n' "$line" >>"$tmp/block"
done <"$readme"
[ "$in_block" = 0 ] || bad "README.md: a code block is never closed"
[ "$quick_seen1" = 1 ] || bad "README.md: Quick start must show '$quick1'"
[ "$quick_seen2" = 1 ] || bad "README.md: Quick start must show '$quick2'"

# every script a lua block saved was run by a later command
for s in "${saved[@]}"; do
    at=${s%%:*} name=${s#*:} used=0
    for c in "${ran[@]}"; do [[ $c == *"$name"* ]] && used=1; done
    if [ "$used" = 1 ]; then ok; else bad "README.md:$at: $name is shown but no command runs it"; fi
done

# --- size ---------------------------------------------------------------
lines=$(wc -l <"$readme")
if [ "$lines" -le 300 ]; then ok; else bad "README.md has $lines lines; at most 300 (issue 19): move reference text to docs/"; fi

# --- relative links in README.md and docs/*.md ----------------------------
# anchors: GitHub's heading ids (lowercase; only letters, digits, spaces,
# - and _ kept; spaces become -; a repeated id gets -1, -2, ...)
anchors() {
    LC_ALL=C awk '
        /^[ \t]*```/ { fence = !fence; next }
        fence || !/^#+ / { next }
        { h = $0; sub(/^#+ +/, "", h); sub(/ +#* *$/, "", h)
          h = tolower(h); gsub(/[^a-z0-9 _-]/, "", h); gsub(/ /, "-", h)
          if (h in seen) { seen[h]++; print h "-" seen[h] } else { seen[h] = 0; print h } }' "$1"
}
check_links() {
    local file=$1 base target path anchor
    base=$(dirname "$file")
    # [text](target) outside code blocks and inline code, and [ref]: target
    LC_ALL=C awk '
        /^[ \t]*```/ { fence = !fence; next }
        fence { next }
        { line = $0; gsub(/`[^`]*`/, "", line)
          while (match(line, /\]\([^) \t]+\)/)) {
              print FNR "\t" substr(line, RSTART + 2, RLENGTH - 3); line = substr(line, RSTART + RLENGTH) }
          if (match(line, /^ *\[[^]]+\]: +[^ ]+/)) { t = line; sub(/^ *\[[^]]+\]: +/, "", t); sub(/ .*/, "", t); print FNR "\t" t } }' "$file" |
    while IFS=$'\t' read -r at target; do
        case $target in http://* | https://* | mailto:*) continue ;; esac
        path=${target%%#*}
        anchor=""
        [[ $target == *#* ]] && anchor=${target#*#}
        if [ -z "$path" ]; then path=$file; else path=$base/$path; fi
        if [ ! -e "$path" ]; then
            echo "BAD ${file#"$root"/}:$at: $target: no such file"
        elif [ -n "$anchor" ] && [[ $path == *.md ]] && ! anchors "$path" | grep -qxF "$anchor"; then
            echo "BAD ${file#"$root"/}:$at: $target: no heading with that id"
        else
            echo OK
        fi
    done
}
nlinks=0
for f in "$readme" "$root"/docs/*.md; do
    while IFS= read -r r; do
        nlinks=$((nlinks + 1))
        if [ "$r" = OK ]; then ok; else bad "${r#BAD }"; fi
    done < <(check_links "$f")
done
[ "$nlinks" -gt 20 ] || bad "only $nlinks relative links found in README.md and docs/: the link check reads nothing?"

# --- the API reference and the command reference cover everything ----------
cat >"$tmp/walk.lua" <<'LUA'
local function walk(t, pre)
  for k, v in pairs(t) do
    if type(v) == "function" or k == "version" then print(pre .. k)
    elseif type(v) == "table" then walk(v, pre .. k .. ".") end
  end
end
walk(tplan, "tplan.")
local res = tplan.sweep{model = "gpt2", axes = {gpus = {1, 2}}, keep = 1}
for k in pairs(getmetatable(res).__index) do print("res:" .. k) end
LUA
if "$tplan" run "$tmp/walk.lua" >"$tmp/api" 2>"$tmp/err" && [ -s "$tmp/api" ]; then
    while IFS= read -r name; do
        if grep -qF "\`$name" "$root/docs/lua-api.md"; then ok; else bad "docs/lua-api.md does not document $name"; fi
    done <"$tmp/api"
else
    bad "listing the Lua module: $(cat "$tmp/err")"
fi
"$tplan" --help 2>&1 | awk '/^commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 }' >"$tmp/commands"
[ -s "$tmp/commands" ] || bad "tplan --help lists no commands"
while IFS= read -r c; do
    if grep -q "^##.*\`tplan $c\`" "$root/docs/cli.md"; then ok; else bad "docs/cli.md has no heading naming \`tplan $c\`"; fi
done <"$tmp/commands"

[ "$skipped" = 0 ] || printf '%d report command(s) skipped: tplan report --help failed\n' "$skipped"
finish
