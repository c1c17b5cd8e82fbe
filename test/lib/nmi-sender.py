#!/usr/bin/env python3
"""nmi-sender: run-guest --nmi-every MS with --l0 none. Sends QEMU's human monitor command `nmi`
over its unix socket every MS milliseconds, from the guest's first console line on, until QEMU
goes away, then writes how many it sent into COUNT_FILE.

    nmi-sender.py SOCKET LOG MS COUNT_FILE DONE_FILE

LOG is run-guest's stamped log ("@  seconds | line"): the NMIs start at the first console line
that is not the shim's own ("(shim) ..."), i.e. once the guest runs; an NMI during the shim's
early boot, before it has an IDT, is not what this is for. It stops when the monitor connection
closes (QEMU exited), when DONE_FILE appears (run-guest saw QEMU end) or when run-guest itself is
gone, so it never outlives the run.
"""
import os
import re
import select
import socket
import sys
import time

# a console line of the guest's: neither the shim's nor a message of QEMU's own (stderr)
GUEST_LINE = re.compile(rb'^@ *[0-9.]+ \| (?!\(shim\) |qemu-system)\S')


def main():
    sock_path, log, ms, count_file, done_file = sys.argv[1:6]
    period = int(ms) / 1000.0
    parent = os.getppid()
    sent = 0

    def over():
        return os.path.exists(done_file) or os.getppid() != parent

    def finish():
        with open(count_file + '.tmp', 'w') as f:
            f.write('%d\n' % sent)
        os.replace(count_file + '.tmp', count_file)

    # QEMU makes the socket as it starts (server,wait=off)
    s = None
    while s is None:
        if over():
            finish()
            return
        try:
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.connect(sock_path)
        except OSError:
            s.close()
            s = None
            time.sleep(0.05)
    s.setblocking(False)

    def drain():
        """Read what the monitor said (its prompts), so that its output never backs up; False
        once QEMU has closed the connection."""
        while True:
            try:
                data = s.recv(4096)
            except BlockingIOError:
                return True
            except OSError:
                return False
            if not data:
                return False

    started = False
    pos = 0
    next_at = time.monotonic()
    while not over():
        if not started:
            try:
                with open(log, 'rb') as f:
                    f.seek(pos)
                    chunk = f.read()
            except OSError:
                chunk = b''
            # whole lines only: a line still being written is read again next time
            cut = chunk.rfind(b'\n') + 1
            pos += cut
            started = any(GUEST_LINE.match(line) for line in chunk[:cut].splitlines())
            next_at = time.monotonic()
        if started and time.monotonic() >= next_at:
            try:
                s.sendall(b'nmi\n')
            except OSError:
                break
            sent += 1
            next_at += period
            # late (the host is busy): skip what was missed rather than send a burst
            next_at = max(next_at, time.monotonic())
        wait = max(0.0, next_at - time.monotonic()) if started else 0.05
        r, _, _ = select.select([s], [], [], min(wait, 0.2))
        if r and not drain():
            break
    s.close()
    finish()


if __name__ == '__main__':
    main()
