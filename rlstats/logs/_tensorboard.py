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

_HEADER = struct.Struct("<QI")
_CRC = struct.Struct("<I")


def _crc_table():
    table = np.arange(256, dtype=np.uint32)
    for _ in range(8):
        table = np.where(table & 1, (table >> 1) ^ np.uint32(0x82F63B78), table >> 1).astype(np.uint32)
    return table


_TABLE = _crc_table()


def masked_crc32c(rows):
    """Masked CRC-32C (TFRecord's checksum) of each row of a uint8 matrix, as uint32."""
    crc = np.full(rows.shape[0], 0xFFFFFFFF, dtype=np.uint32)
    for j in range(rows.shape[1]):
        crc = _TABLE[(crc ^ rows[:, j]) & 0xFF] ^ (crc >> 8)
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
    offsets, lengths, header_crcs, data_crcs = [], [], [], []
    position = 0
    while position < size:
        if position + 12 > size:
            raise FileProblem("truncated", f"the file ends inside a record header at byte {position} of {size}")
        length, header_crc = _HEADER.unpack_from(data, position)
        end = position + 12 + length + 4
        if end > size:
            if length > size:  # a length this large is more likely a corrupt header than a cut-off record
                _check_headers(data, [position], [header_crc])
            raise FileProblem("truncated", f"the file ends inside the record starting at byte {position} "
                                           f"(it needs {length + 16} bytes, {size - position} are there)")
        offsets.append(position)
        lengths.append(length)
        header_crcs.append(header_crc)
        data_crcs.append(_CRC.unpack_from(data, end - 4)[0])
        position = end
    offsets = np.asarray(offsets, dtype=np.int64)
    lengths = np.asarray(lengths, dtype=np.int64)
    buffer = np.frombuffer(data, dtype=np.uint8)
    _check_headers(data, offsets, header_crcs)
    data_crcs = np.asarray(data_crcs, dtype=np.uint64)
    for length in np.unique(lengths):
        which = np.flatnonzero(lengths == length)
        rows = buffer[(offsets[which] + 12)[:, None] + np.arange(length)]
        bad = which[masked_crc32c(rows) != data_crcs[which]]
        if bad.size:
            raise FileProblem("corrupt", f"the record at byte {offsets[bad[0]]} fails its checksum")
    return offsets, lengths


def _check_headers(data, offsets, header_crcs):
    buffer = np.frombuffer(data, dtype=np.uint8)
    offsets = np.asarray(offsets, dtype=np.int64)
    rows = buffer[offsets[:, None] + np.arange(8)]
    bad = np.flatnonzero(masked_crc32c(rows) != np.asarray(header_crcs, dtype=np.uint64))
    if bad.size:
        raise FileProblem("corrupt", f"the record header at byte {offsets[bad[0]]} fails its checksum")


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
    tag_codes, steps, tags, values, walls = {}, [], [], [], []
    tensor_value = None
    for offset, length in zip(offsets.tolist(), lengths.tolist()):
        try:
            event = parse(data[offset + 12:offset + 12 + length])
        except Exception as exc:  # protobuf's DecodeError; the checksum passed, so the writer wrote garbage
            raise FileProblem("corrupt", f"the record at byte {offset} is not a TensorBoard event ({exc})") from exc
        if not event.HasField("summary"):
            continue
        for item in event.summary.value:
            kind = item.WhichOneof("value")
            if kind == "simple_value":
                value = item.simple_value
            elif kind == "tensor" and item.metadata.plugin_data.plugin_name in ("scalars", ""):
                if tensor_value is None:
                    from tensorboard.util import tensor_util

                    tensor_value = tensor_util.make_ndarray
                array = tensor_value(item.tensor)
                if array.size != 1 or array.dtype.kind not in "fiub":
                    continue
                value = float(array.reshape(-1)[0])
            else:
                continue
            code = tag_codes.setdefault(item.tag, len(tag_codes))
            steps.append(event.step)
            tags.append(code)
            values.append(value)
            walls.append(event.wall_time)
    if not steps:
        raise FileProblem("empty", f"no scalar summaries in {len(offsets)} records")
    return [Piece(tuple(tag_codes), np.asarray(steps, dtype=np.int64), np.asarray(tags, dtype=np.intp),
                  np.asarray(values, dtype=float), wall_time=np.asarray(walls, dtype=float))]
