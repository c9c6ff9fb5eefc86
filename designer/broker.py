"""The embedded broker (no server): kombu's filesystem transport with atomic message writes.

kombu's filesystem transport (5.x, ``Channel._put``) creates the message file under its final
name and then writes it. A worker polling the queue folder can move and read that file in
between and get zero bytes; ``json.loads("")`` then raises in the consumer loop, which Celery
treats as an *unrecoverable* error: the worker stops and the message is lost. CI met exactly
that (``test_worker_answers_ping``: "Unrecoverable error: JSONDecodeError").

Here a message is written to a name the reader never matches (``….msg.part``), flushed to disk
and renamed into place with ``os.replace`` — atomic within one folder on POSIX — so a reader
sees either no file or the whole message. Settings select this transport with
``CELERY_BROKER_TRANSPORT`` when the URL is ``filesystem://``.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps


def message_filename(queue: str) -> str:
    """kombu's own name: time-ordered, unique, ``<ms>_<uuid>.<queue>.msg`` (its reader's filter)."""
    return f"{round(monotonic() * 1000)}_{uuid.uuid4()}.{queue}.msg"


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        final = os.path.join(self.data_folder_out, message_filename(queue))
        partial = final + ".part"  # partition('.')[2] is "<queue>.msg.part": never read
        try:
            with open(partial, "wb") as handle:
                handle.write(str_to_bytes(dumps(payload)))
                handle.flush()
                os.fsync(handle.fileno())
            os.replace(partial, final)
        except OSError as exc:
            with contextlib.suppress(OSError):
                os.remove(partial)
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc


class Transport(filesystem.Transport):
    Channel = Channel
