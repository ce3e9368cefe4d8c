# Sourced (not run) by the accuracy and calibration reports, from the
# directory above scripts/ (a checkout, or share/tplan where installed):
# the tplan they run, their options and their one dependency.
#
# tplan: $TPLAN, else build/cli/tplan in a checkout, else the prefix's
# bin/tplan (share/tplan/../../bin).
tplan=${TPLAN:-build/cli/tplan}
[ -n "${TPLAN:-}" ] || [ -x "$tplan" ] || tplan=../../bin/tplan
command -v jq >/dev/null || {
    echo "${report:-accuracy}: needs jq (scripts/setup.sh --test installs it)" >&2
    exit 1
}

# report_args [--data] ARGS...: rows=true after a leading --rows; with
# --data a next argument that is not -- replaces $data; extra holds the
# calc options after --.
report_args() {
    local takes_data=false

    [ "${1:-}" = "--data" ] && { takes_data=true; shift; }
    rows=false
    [ "${1:-}" = "--rows" ] && { rows=true; shift; }
    if $takes_data && [ $# -gt 0 ] && [ "$1" != "--" ]; then data=$1; shift; fi
    [ "${1:-}" = "--" ] && shift
    extra=("$@")
}
