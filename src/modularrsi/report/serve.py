"""Serve one report file on 127.0.0.1 (``modularrsi report --serve``) until interrupted.

The file is read on every request, so a report written again is served fresh. Only ``/`` and the
file's own name are answered; everything else is 404. Nothing listens beyond the loopback interface.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path


def make_server(path: Path, port: int = 0) -> ThreadingHTTPServer:
    """A server for ``path`` on 127.0.0.1:``port`` (0: any free port; see ``server.server_port``)."""
    names = {"/", f"/{path.name}"}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            if self.path.split("?")[0] not in names:
                self.send_error(404)
                return
            body = path.read_bytes()
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args) -> None:
            pass

    return ThreadingHTTPServer(("127.0.0.1", port), Handler)


def serve(path: Path, port: int, ready: Callable[[str], None]) -> None:
    """Serve ``path`` until Ctrl-C; ``ready`` receives the URL once the socket listens.

    Ctrl-C is taken even when this process started with SIGINT ignored (as a shell's background job
    does, and everything started from it): Python installs no handler then, and Ctrl-C would do nothing.
    """
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGINT, signal.default_int_handler)
    server = make_server(path, port)
    ready(f"http://127.0.0.1:{server.server_port}/")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
