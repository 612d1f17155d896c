"""The notify socket (NOTIFY_SOCKET) chimed reports to, held as systemd would hold it: chimed's sd_notify messages,
each with the time the kernel received it, and waiting for one (READY=1, RELOADING=1)."""

import socket
import struct
import threading
import time

# Linux's SO_TIMESTAMPNS (SCM_TIMESTAMPNS for the control message): the kernel stamps each datagram on arrival
# with CLOCK_REALTIME, so a READY=1 is timed when chimed sent it, not when this program got round to reading it.
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)


class NotifySocket:
    """A stand-in for systemd's notify socket: every sd_notify datagram, in order, with its kernel arrival time.

    A thread drains it all the time, as systemd does: sd_notify's sendmsg blocks once the socket's queue
    (net.unix.max_dgram_qlen datagrams) is full, and chimed sends STATUS= after every fire.

    `messages` holds them all as (arrival ns since the epoch, run, {KEY: VALUE}), where `run` is what the attribute
    of that name was when the message came: soak/run numbers its successive chimed processes on one socket so.
    wait_for reads on from where it last stopped, so that each wait sees only what came since.
    """

    def __init__(self, path):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.bind(path)
        self.arrived = threading.Condition()
        self.messages = []
        self.run = None
        self.position = 0  # the first message wait_for has not looked at
        self.closed = False
        self.reader = threading.Thread(target=self._drain, daemon=True)
        self.reader.start()

    def close(self):
        self.closed = True
        self.sock.shutdown(socket.SHUT_RDWR)
        self.reader.join(timeout=2)
        self.sock.close()

    def _drain(self):
        while not self.closed:
            try:
                data, ancillary, _, _ = self.sock.recvmsg(4096, socket.CMSG_SPACE(16))
            except OSError:
                return
            if not data:
                continue
            arrival = time.time_ns()
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= 16:
                    seconds, nanoseconds = struct.unpack("qq", payload[:16])
                    arrival = seconds * 1_000_000_000 + nanoseconds
            fields = {}
            for line in data.decode(errors="replace").split("\n"):
                key, _, value = line.partition("=")
                if key:
                    fields[key] = value
            with self.arrived:
                self.messages.append((arrival, self.run, fields))
                self.arrived.notify_all()

    def received(self):
        """Every message so far: a copy of `messages`."""
        with self.arrived:
            return list(self.messages)

    def skip(self):
        """Passes over every message so far: the next wait_for looks only at those that come after."""
        with self.arrived:
            self.position = len(self.messages)

    def wait_for(self, key, timeout, proc=None, run=None):
        """Waits for the next message with `key` (of run `run`, if given); returns (arrival ns since the epoch,
        {KEY: VALUE}). Raises if it does not come in time or chimed (`proc`) exits."""
        deadline = time.monotonic() + timeout
        with self.arrived:
            while True:
                while self.position < len(self.messages):
                    arrival, index, fields = self.messages[self.position]
                    self.position += 1
                    if key in fields and (run is None or index == run):
                        return arrival, fields
                if proc is not None and proc.poll() is not None:
                    raise RuntimeError(f"chimed exited with status {proc.returncode} before {key}")
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    raise RuntimeError(f"no {key} from chimed within {timeout} s")
                self.arrived.wait(min(remaining, 0.5))
