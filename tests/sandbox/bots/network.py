"""Tries to reach a listener on 127.0.0.1 (port filled in by the test) every way it can,
reports each attempt on stderr, then plays properly."""

import socket
import sys

PORT = int("__PORT__")


def attempt(what, action):
    try:
        action()
    except OSError as exc:
        print(f"blocked {what}: {exc}", file=sys.stderr)
    else:
        print(f"REACHED {what}", file=sys.stderr)


def tcp4():
    with socket.create_connection(("127.0.0.1", PORT), timeout=0.5) as s:
        s.sendall(b"hello from the sandbox")


def tcp6():
    with socket.create_connection(("::1", PORT), timeout=0.5) as s:
        s.sendall(b"hello from the sandbox")


def udp():
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.sendto(b"hello from the sandbox", ("127.0.0.1", PORT))


def raw():
    socket.socket(socket.AF_PACKET, socket.SOCK_RAW)


def dns():
    socket.getaddrinfo("example.org", 80)


class Bot:
    def __init__(self):
        for what, action in (
            ("tcp4", tcp4),
            ("tcp6", tcp6),
            ("udp", udp),
            ("raw", raw),
            ("dns", dns),
        ):
            attempt(what, action)

    def draft_pick(self, cards):
        return 0

    def draft_receive(self, card):
        pass

    def main_play(self, hand, base):
        return 0

    def main_postprocess(self, card):
        pass
