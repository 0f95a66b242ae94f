#!/usr/bin/env bash
# Runs prebuilt vqscope binaries on the lent GPU machine (see docs/PERF.md):
# unpacks the carried Vulkan loader and validation layer, then runs each
# command given as an argument, logging everything under $OUT.
#   scripts/device-run.sh "bin/vqscope bench ui" "VAR=1 bin/compaction"
# (commands run inside .devcarry/, where the carried binaries are)
set -uo pipefail
for f in .gl/*.deb; do dpkg -x "$f" / 2>/dev/null; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
    export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export VQSCOPE_ROOT=$PWD VQSCOPE_SHARED=$PWD/.devcarry/shared
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv 2>&1 | tee "$OUT/gpu.txt"
status=0
for cmd in "$@"; do
    name=$(echo "$cmd" | tr -c 'A-Za-z0-9_.-' '_' | cut -c1-60)
    echo "=== $cmd"
    if ! (cd .devcarry && eval "$cmd") > "$OUT/$name.log" 2>&1; then
        status=1
        echo "FAILED: $cmd"
    fi
    tail -n 40 "$OUT/$name.log"
done
exit $status
