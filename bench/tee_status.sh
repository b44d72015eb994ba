# tee_status.sh - sourced by the benchmark drivers: tee_status FILE CMD...
# runs CMD with its standard output shown and copied to FILE, and returns
# CMD's status, not tee's (POSIX sh has no pipefail).
tee_status() {
    tee_file=$1
    shift
    { set +e; "$@"; echo $? > "$tee_file.status"; } | tee "$tee_file"
    tee_rc=$(cat "$tee_file.status")
    rm -f "$tee_file.status"
    return "$tee_rc"
}
