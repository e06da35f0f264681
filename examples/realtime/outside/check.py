#!/usr/bin/python3
"""Strict outside client for examples/realtime: Debian's python3-websockets
(a conforming RFC 6455 implementation that fails on any protocol error of
the server) against a running example. Usage: check.py HOST:PORT [hold N]

Without "hold": echo of text, binary, fragmented and 64 KiB messages, ping
answered with its payload, 64 KiB + 1 closed with 1009, cross-origin 403.
With "hold N": opens N idle connections, prints "held", and waits until
every one is closed, then checks each got close 1001 (run.sh sends SIGTERM
after "held")."""
import asyncio
import sys

import websockets


async def basic(addr):
    uri = f"ws://{addr}/ws"
    async with websockets.connect(uri, max_size=None, compression=None) as ws:
        await ws.send("hello, outside")
        assert await ws.recv() == "hello, outside", "text echo"
        await ws.send(bytes(range(256)))
        assert await ws.recv() == bytes(range(256)), "binary echo"
        await ws.send(["frag", "men", "ted"])  # one message in three frames
        assert await ws.recv() == "fragmented", "fragmented echo"
        big = b"x" * 65536
        await ws.send(big)
        assert await ws.recv() == big, "64 KiB echo"
        pong = await ws.ping(b"same payload")  # websockets checks the pong's payload
        await asyncio.wait_for(pong, 5)
        await ws.send(b"y" * 65537)
        try:
            await asyncio.wait_for(ws.recv(), 5)
            raise AssertionError("64 KiB + 1 was echoed")
        except websockets.ConnectionClosed:
            pass
        assert ws.close_code == 1009, f"64 KiB + 1: close {ws.close_code}, want 1009"
    try:
        async with websockets.connect(uri, origin="https://elsewhere.example"):
            raise AssertionError("cross-origin handshake accepted")
    except websockets.InvalidStatusCode as e:
        assert e.status_code == 403, f"cross-origin: status {e.status_code}, want 403"
    print("ok: echo (text, binary, fragmented, 64 KiB), ping payload, 1009, cross-origin 403")


async def hold(addr, n):
    conns = []
    for _ in range(n):
        conns.append(await websockets.connect(f"ws://{addr}/ws", ping_interval=None, compression=None))
    print("held", flush=True)
    codes = []
    for ws in conns:
        await asyncio.wait_for(ws.wait_closed(), 60)
        codes.append(ws.close_code)
    bad = [c for c in codes if c != 1001]
    assert not bad, f"{len(bad)} of {n} connections closed without 1001: {sorted(set(bad))}"
    print(f"ok: {n} connections closed with 1001")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[2] == "hold":
        asyncio.run(hold(sys.argv[1], int(sys.argv[3])))
    else:
        asyncio.run(basic(sys.argv[1]))
