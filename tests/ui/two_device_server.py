#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-3.0-or-later
# A run server with two devices for tst_spread: it stands in front of `BENCH --serve` (the CPU
# backend, one device), lists that device twice ("Fake GPU 0" and "Fake GPU 1"), runs every
# request on device 0, names the device asked for in each result and answers each run DELAY
# seconds late (a run of M = SLOW_M twice as late), so that runs spread over the two devices take
# about half the time, and a later run can end before an earlier one.
# Usage: two_device_server.py BENCH DELAY [SLOW_M]
import json
import subprocess
import sys
import time

bench, delay = sys.argv[1], float(sys.argv[2])
slow_m = int(sys.argv[3]) if len(sys.argv) > 3 else None
server = subprocess.Popen([bench, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                          text=True, bufsize=1)


def name(index):
    return "Fake GPU %d" % index


for line in sys.stdin:
    request = json.loads(line)
    verb = request.get("verb")
    device = 0
    if verb == "run":
        device = request["request"].get("device", 0)
        request["request"]["device"] = 0
    server.stdin.write(json.dumps(request) + "\n")
    server.stdin.flush()
    if verb == "run":
        time.sleep(2 * delay if request["request"].get("m") == slow_m else delay)
    while True:
        reply = json.loads(server.stdout.readline())
        kind = reply.get("reply")
        if kind == "hello":
            for backend in reply["backends"]:
                if backend["id"] == "cpu" and backend.get("devices"):
                    first = backend["devices"][0]
                    backend["devices"] = [dict(first, index=i, name=name(i)) for i in (0, 1)]
        elif kind == "result":
            reply["result"]["device"] = name(device)
        print(json.dumps(reply), flush=True)
        if kind != "progress":
            break
    if verb == "bye":
        break
