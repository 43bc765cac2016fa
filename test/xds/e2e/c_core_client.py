"""Proxyless gRPC C-core client (Debian python3-grpcio) of xds:///<target>.

Run with /usr/bin/python3. The bootstrap file is named by GRPC_XDS_BOOTSTRAP
(set by the parent test). Prints one JSON line per RPC, like grpc-js-client.ts:
{"ok": true, "server": "<instance>"} or {"ok": false, "error": "..."}.
Stops when stdin closes or on SIGTERM.
"""
import json
import signal
import sys
import threading
import time

import grpc

target, method = sys.argv[1], sys.argv[2]
running = threading.Event()
running.set()


def stop(*_args):
    running.clear()


signal.signal(signal.SIGTERM, stop)
threading.Thread(target=lambda: (sys.stdin.read(), stop()), daemon=True).start()

channel = grpc.insecure_channel(target)
call = channel.unary_unary(method, request_serializer=lambda b: b, response_deserializer=lambda b: b)

while running.is_set():
    try:
        reply = call(b"", timeout=2)
        line = {"ok": True, "server": reply.decode()}
    except grpc.RpcError as err:  # UNAVAILABLE until the hub has sent everything
        line = {"ok": False, "error": f"{err.code().name} {err.details()}"}
    sys.stdout.write(json.dumps(line) + "\n")
    sys.stdout.flush()
    time.sleep(0.025)

channel.close()
