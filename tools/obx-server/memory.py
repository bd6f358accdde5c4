#!/usr/bin/env python3
"""Resident memory of a running baghchal-server over many /obx requests.

Usage: tools/obx-server/memory.py PORT PID [REQUESTS]  (default 20000)
Four clients send POST /obx (start position, depth 3), a new connection each, and the
server's VmRSS (from /proc/PID/status) is printed at the start and after each quarter."""
import socket
import sys
import threading

port, pid = int(sys.argv[1]), sys.argv[2]
total = int(sys.argv[3]) if len(sys.argv) > 3 else 20000
body = b'{"obx":"TXXXT/XXXXX/XXXXX/XXXXX/TXXXT g @20 c0 - #","depth":3}'
request = b"POST /obx HTTP/1.1\r\nHost: x\r\nContent-Length: %d\r\n\r\n" % len(body) + body


def rss_kb():
    with open("/proc/%s/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS"):
                return int(line.split()[1])


def client(n):
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(request)
        answer = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            answer += chunk
        s.close()
        if not answer.startswith(b"HTTP/1.1 200"):
            sys.exit("unexpected answer: %r" % answer[:120])


print("requests 0: VmRSS %d kB" % rss_kb())
for quarter in range(4):
    threads = [threading.Thread(target=client, args=(total // 16,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print("requests %d: VmRSS %d kB" % ((quarter + 1) * total // 4, rss_kb()), flush=True)
