"""TensorBoard event files: TFRecord framing checked here, events decoded by the tensorboard package.

An event file is a sequence of records, each ``length`` (uint64 little-endian), the masked
CRC-32C of those 8 bytes, ``length`` bytes of a serialised ``tensorboard.compat.proto.Event``
and the masked CRC-32C of those bytes. The tensorboard package's own loader is built to follow
files that are still being written: it stops quietly at a cut-off record and checks checksums
in pure Python (about 70 ms for 500 scalars). Here the framing is walked once, every checksum is
computed with numpy over all records of one length at a time, a cut-off or corrupt record is an
error naming the byte, and each event is decoded by the tensorboard package's protobuf class.
Scalars come as ``simple_value`` (tensorboardX, PyTorch, TF1) or as a one-element tensor with
the ``scalars`` plugin (TF2's ``tf.summary.scalar``); other summaries (histograms, images) are
skipped.
"""

from __future__ import annotations

import struct

import numpy as np

from ..errors import LogReadError
from ._pieces import FileProblem, Piece

_LENGTH = struct.Struct("<Q")


def _crc_table():
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1).astype(np.uint32)
    return table


_TABLE = _crc_table()


def masked_crc32c(buffer, starts, lengths):
    """Masked CRC-32C (TFRecord's checksum) of ``buffer[starts[i]:starts[i] + lengths[i]]`` for every i.

    One pass over the longest record for all records at once: each record is right-aligned, so a
    record of length L joins the running update at column max(lengths) - L.
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    width = int(lengths.max()) if lengths.size else 0
    crc = np.full(lengths.size, 0xFFFFFFFF, dtype=np.uint32)
    first = width - lengths
    base = np.asarray(starts, dtype=np.int64) - first
    for j in range(width):
        active = first <= j
        if active.all():
            crc = _TABLE[(crc ^ buffer[base + j]) & 0xFF] ^ (crc >> 8)
        else:
            index = np.flatnonzero(active)
            crc[index] = _TABLE[(crc[index] ^ buffer[base[index] + j]) & 0xFF] ^ (crc[index] >> 8)
    crc = (crc ^ np.uint32(0xFFFFFFFF)).astype(np.uint64)
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF


def _event_class():
    try:
        from tensorboard.compat.proto import event_pb2
    except ImportError as exc:
        raise LogReadError("reading TensorBoard event files needs the tensorboard package: "
                           f"pip install 'rlstats[logs]' ({exc})") from exc
    return event_pb2.Event


def frame_records(data):
    """Offsets and lengths of the records in ``data``; raises FileProblem when cut off or corrupt."""
    size = len(data)
    offsets = []
    unpack = _LENGTH.unpack_from
    position = 0
    while position + 12 <= size:  # the length and its checksum are there
        offsets.append(position)
        position += unpack(data, position)[0] + 16
    buffer = np.frombuffer(data, dtype=np.uint8)
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = (buffer[offsets[:, None] + np.arange(8)].copy().view("<u8").ravel().astype(np.int64)
               if offsets.size else np.zeros(0, np.int64))
    _check(buffer, offsets, np.full(offsets.size, 8), offsets + 8, "record header")  # before trusting a length
    if position > size:
        last = int(offsets[-1])
        raise FileProblem("truncated", f"the file ends inside the record starting at byte {last} "
                                       f"(it needs {int(lengths[-1]) + 16} bytes, {size - last} are there)")
    if position < size:
        raise FileProblem("truncated", f"the file ends inside a record header at byte {position} of {size}")
    _check(buffer, offsets + 12, lengths, offsets + 12 + lengths, "record")
    return offsets, lengths


def _check(buffer, starts, lengths, crc_at, what):
    """Raise FileProblem at the first of these byte ranges whose stored masked CRC-32C differs."""
    if not starts.size:
        return
    stored = buffer[crc_at[:, None] + np.arange(4)].copy().view("<u4").ravel().astype(np.uint64)
    bad = np.flatnonzero(masked_crc32c(buffer, starts, lengths) != stored)
    if bad.size:
        start = int(starts[bad[0]]) - (12 if what == "record" else 0)
        raise FileProblem("corrupt", f"the {what} at byte {start} fails its checksum")


def read_events(path):
    """Scalars of one event file as a :class:`Piece` (one record per scalar value)."""
    event_class = _event_class()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FileProblem("unreadable", str(exc)) from exc
    if not data:
        raise FileProblem("empty", "the file has no bytes")
    offsets, lengths = frame_records(data)
    parse = event_class.FromString
    tag_codes, records = {}, []
    add, code_of = records.append, tag_codes.setdefault
    tensor_value = None
    for offset, length in zip((offsets + 12).tolist(), lengths.tolist()):
        try:
            event = parse(data[offset:offset + length])
        except Exception as exc:  # protobuf's DecodeError; the checksum passed, so the writer wrote garbage
            raise FileProblem("corrupt", f"the record at byte {offset - 12} is not a TensorBoard event "
                                         f"({exc})") from exc
        items = event.summary.value
        if not items:
            continue
        for item in items:
            kind = item.WhichOneof("value")
            if kind == "simple_value":
                add((event.step, code_of(item.tag, len(tag_codes)), item.simple_value, event.wall_time))
            elif kind == "tensor" and item.metadata.plugin_data.plugin_name in ("scalars", ""):
                if tensor_value is None:
                    from tensorboard.util import tensor_util

                    tensor_value = tensor_util.make_ndarray
                array = tensor_value(item.tensor)
                if array.size == 1 and array.dtype.kind in "fiub":
                    add((event.step, code_of(item.tag, len(tag_codes)), float(array.reshape(-1)[0]),
                         event.wall_time))
    if not records:
        raise FileProblem("empty", f"no scalar summaries in {len(offsets)} records")
    step, tag, value, wall = zip(*records)
    return [Piece(tuple(tag_codes), np.asarray(step, dtype=np.int64), np.asarray(tag, dtype=np.intp),
                  np.asarray(value, dtype=float), wall_time=np.asarray(wall, dtype=float))]
