"""The model endpoint forwarder that runs inside an agent's sandbox, and the pipe the host end uses.

Shipped as a file into the sandbox and run with whatever python3 the image has, so it sticks to
syntax Python 3.5 understands. Listens on 127.0.0.1 only and pipes each connection to the
bridge's Unix socket (argv[1]); the chosen port is written to argv[2].
"""

import os
import socket
import sys
import threading


def pipe(src: socket.socket, dst: socket.socket) -> None:
    """Copy src to dst until src ends, then end dst's writing side (both ends of a bridge use it)."""
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except OSError:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass


def handle(client: socket.socket, path: str) -> None:
    upstream = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        upstream.connect(path)
    except OSError:
        client.close()
        upstream.close()
        return
    t = threading.Thread(target=pipe, args=(upstream, client))
    t.daemon = True
    t.start()
    pipe(client, upstream)
    t.join()
    client.close()
    upstream.close()


def main() -> None:
    path, port_file = sys.argv[1], sys.argv[2]
    server = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    server.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    server.bind(("127.0.0.1", 0))
    server.listen(32)
    tmp = port_file + ".tmp"
    with open(tmp, "w") as fh:
        fh.write(str(server.getsockname()[1]))
    os.rename(tmp, port_file)
    while True:
        client, _ = server.accept()
        t = threading.Thread(target=handle, args=(client, path))
        t.daemon = True
        t.start()


if __name__ == "__main__":
    main()
