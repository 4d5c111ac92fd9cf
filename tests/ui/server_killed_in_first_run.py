#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# A run server lost in its first run, for tst_command_line: it stands in front of
# `BENCH --serve`, passes every request on and, once it has passed on the first run, kills the
# server and then itself with SIGKILL, as a host that loses the process would. Only the first
# start dies (it leaves the file ONCE behind); later starts are the plain server. It waits for the
# run, not for a time, so a slow start on a loaded machine never kills it before it is connected.
# Usage: server_killed_in_first_run.py BENCH ONCE
import json
import os
import signal
import subprocess
import sys

bench, once = sys.argv[1], sys.argv[2]
if os.path.exists(once):
    os.execv(bench, [bench, "--serve"])
open(once, "w").close()
# The server answers on this process's own stdout.
server = subprocess.Popen([bench, "--serve"], stdin=subprocess.PIPE, text=True, bufsize=1)
for line in sys.stdin:
    server.stdin.write(line)
    server.stdin.flush()
    if json.loads(line).get("verb") == "run":
        server.kill()
        server.wait()
        os.kill(os.getpid(), signal.SIGKILL)
