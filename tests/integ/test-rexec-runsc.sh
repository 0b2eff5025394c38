#!/usr/bin/env bash
# test-rexec-runsc.sh - test-rexec.sh's checks with LAZARET_RUNSC_EXEC=1:
# sessions through runsc exec itself, the way kept for a runsc whose control
# calls lazaret does not know (backend/sandbox/podman/rexec.c).
REXEC_RUNSC=1 exec bash "$(dirname "$0")/test-rexec.sh"
