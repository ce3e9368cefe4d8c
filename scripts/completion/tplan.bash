# bash completion for tplan: commands, each command's options, catalog
# names after --model, --gpu and --framework, a plan field's valid values
# after its calc flag, file names where a command takes a file.
# Every list comes from the tplan being completed (its --help, `tplan
# fields --json`, `tplan models --names`...), so new commands, flags and
# presets need no edit here. Needs bash 4 and awk, not bash-completion.

# The program being completed: the word typed when it runs, else tplan.
_tplan_prog()
{
    local p=${COMP_WORDS[0]}
    p=${p/#\~/$HOME}
    if command -v -- "$p" >/dev/null 2>&1; then
        printf '%s\n' "$p"
    else
        printf 'tplan\n'
    fi
}

# The commands `tplan --help` lists, one per line.
_tplan_commands()
{
    "$1" --help 2>/dev/null |
        awk '/^commands:/ { on = 1; next }
             on && /^  [a-z]/ { print $1 }
             on && /^$/ { exit }'
}

# The options `tplan CMD --help` names (--long and -x) on its usage line
# and indented option lines, not in its prose; calc adds every flag of the
# plan field table (tplan fields --json). One per line.
_tplan_options()
{
    {
        "$1" "$2" --help 2>/dev/null | grep -E '^(usage:|[[:space:]])'
        [ "$2" != calc ] || "$1" fields --json 2>/dev/null | grep '"flag":'
    } | awk '{ gsub(/[][(){}|,\/.;:`"]/, " ")
               for (i = 1; i <= NF; i++)
                   if ($i ~ /^--[a-z0-9][a-z0-9-]*$/ || $i ~ /^-[a-zA-Z]$/)
                       print $i }
             END { print "--help" }' | sort -u
}

# The valid values of the plan field whose calc flag is $2 (none for a
# field without a list).
_tplan_values()
{
    "$1" fields --json 2>/dev/null |
        awk -v want="$2" '
            /"flag":/ { f = $0; sub(/.*"flag": */, "", f); gsub(/[",]/, "", f) }
            /"values": *\[/ { on = f == want; buf = $0; sub(/.*\[/, "", buf) }
            !/"values": *\[/ && on { buf = buf " " $0 }
            on && /\]/ { sub(/\].*/, "", buf); gsub(/[",]/, " ", buf)
                         print buf; exit }' | tr -s ' ' '\n' | sed '/^$/d'
}

# Does option $2 of command $1 take a value? (the commands with
# positional arguments; calc has none)
_tplan_takes_value()
{
    case "$1 $2" in
        "run --threads" | "run --shard" | "run --csv" | "run --db" | \
            "run --timeout" | "run --max-memory" | \
            "export --csv" | "export --sweep" | "export --top" | \
            "export --where" | "export --columns" | \
            "calibrate --framework" | "calibrate --framework-file" | \
            "calibrate --name" | "calibrate -o" | "calibrate --output")
            return 0 ;;
    esac
    return 1
}

# COMPREPLY from the lines on stdin that start with $1 (stdin from a
# redirection, not a pipe: a pipe's last command runs in a subshell).
_tplan_reply()
{
    local line
    COMPREPLY=()
    while IFS= read -r line; do
        [[ $line == "$1"* ]] && COMPREPLY+=("$line")
    done
}

# File names (and directories) for $1; $2 an optional glob such as *.lua.
_tplan_files()
{
    compopt -o filenames 2>/dev/null
    if [ -n "${2:-}" ]; then
        _tplan_reply "$1" < <({
            compgen -d -- "$1"
            compgen -f -X "!$2" -- "$1"
        } | sort -u)
    else
        _tplan_reply "$1" < <(compgen -f -- "$1")
    fi
}

_tplan()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev='' cmd=${COMP_WORDS[1]:-} tp
    local i w npos=0 dashdash=0

    tp=$(_tplan_prog)
    [ "$COMP_CWORD" -ge 2 ] && prev=${COMP_WORDS[COMP_CWORD - 1]}
    # --opt=value: bash splits the word at '='
    if [ "$cur" = "=" ]; then
        cur=
    elif [ "$prev" = "=" ] && [ "$COMP_CWORD" -ge 3 ]; then
        prev=${COMP_WORDS[COMP_CWORD - 2]}
    fi

    if [ "$COMP_CWORD" -eq 1 ]; then
        if [[ $cur == -* ]]; then
            _tplan_reply "$cur" < <(printf '%s\n' --help --version)
        else
            _tplan_reply "$cur" < <(_tplan_commands "$tp")
        fi
        return 0
    fi

    case "$prev" in
        --model | --gpu | --framework)
            _tplan_reply "$cur" < <("$tp" "${prev#--}s" --names 2>/dev/null)
            return 0 ;;
        --csv | --db | --gpu-file | --model-file | --model-config | \
            --framework-file | -o | --output)
            if [ "$cmd" != query ]; then
                _tplan_files "$cur"
                return 0
            fi ;;
    esac
    if [ "$cmd" = calc ] && [[ $prev == --* ]] && [[ $cur != -* ]]; then
        _tplan_reply "$cur" < <(_tplan_values "$tp" "$prev")
        [ ${#COMPREPLY[@]} -eq 0 ] || return 0
    fi

    # positional arguments before the word being completed
    for ((i = 2; i < COMP_CWORD; i++)); do
        w=${COMP_WORDS[i]}
        if [ "$w" = "--" ]; then
            dashdash=1
        elif [ "$w" = "=" ]; then
            i=$((i + 1))
        elif [[ $w == -?* ]]; then
            if [ "${COMP_WORDS[i + 1]:-}" != "=" ] &&
                _tplan_takes_value "$cmd" "$w"; then
                i=$((i + 1))
            fi
        else
            npos=$((npos + 1))
        fi
    done
    [ "$dashdash" = 0 ] || return 0 # a script's own arguments
    if [[ $cur == -* ]]; then
        _tplan_reply "$cur" < <(_tplan_options "$tp" "$cmd")
        return 0
    fi
    case "$cmd" in
        run) [ "$npos" -gt 0 ] || _tplan_files "$cur" '*.lua' ;;
        query | export) [ "$npos" -gt 0 ] || _tplan_files "$cur" ;;
        merge) _tplan_files "$cur" ;;
        calibrate) [ "$npos" -gt 0 ] || _tplan_files "$cur" '*.csv' ;;
        gpus | models | frameworks)
            [ "$npos" -gt 0 ] ||
                _tplan_reply "$cur" < <("$tp" "$cmd" --names 2>/dev/null) ;;
    esac
    return 0
}

complete -F _tplan tplan
