"""TensorBoard event files: TFRecord framing checked here, events decoded by the tensorboard package.

An event file is a sequence of records, each ``length`` (uint64 little-endian), the masked
CRC-32C of those 8 bytes, ``length`` bytes of a serialised ``tensorboard.compat.proto.Event``
and the masked CRC-32C of those bytes. The tensorboard package's own loader is built to follow
files that are still being written: it stops quietly at a cut-off record and checks checksums
in pure Python (about 70 ms for 500 scalars). Here the framing is walked once, every checksum is
computed with numpy over all records at once, and a cut-off or corrupt record is an error naming
the byte. Events that are one plain ``simple_value`` scalar (what tensorboardX, PyTorch and TF1
write for ``add_scalar``) are decoded straight from protobuf's wire format with numpy, all
records of a file at once; every other event is decoded by the tensorboard package's protobuf
class. The tests check both paths give the same values.
Scalars come as ``simple_value`` (tensorboardX, PyTorch, TF1) or as a one-element tensor with
the ``scalars`` plugin (TF2's ``tf.summary.scalar``); other summaries (histograms, images) are
skipped.
"""

from __future__ import annotations

import struct

import numpy as np

from ..errors import LogReadError, install_hint
from ._pieces import FileProblem, Piece

_LENGTH = struct.Struct("<Q")


def _crc_tables():
    """CRC-32C (Castagnoli, reflected) tables: a byte at a time, and two bytes at a time."""
    def shifted(values, bits):
        for _ in range(bits):
            values = np.where(values & 1, (values >> 1) ^ np.uint32(0x82F63B78), values >> 1).astype(np.uint32)
        return values
    return shifted(np.arange(256, dtype=np.uint32), 8), shifted(np.arange(1 << 16, dtype=np.uint32), 16)


_TABLE, _TABLE16 = _crc_tables()
#: Bytes of records gathered at once by :func:`masked_crc32c` (a block of columns of the record matrix), so
#: that one long record (an image summary) among many short ones never asks for records x longest bytes.
CRC_BLOCK_BYTES = 1 << 20


def masked_crc32c(buffer, starts, lengths):
    """Masked CRC-32C (TFRecord's checksum) of ``buffer[starts[i]:starts[i] + lengths[i]]`` for every i.

    One pass over the columns of a matrix of all records at once, two bytes a column (a table of
    65,536 entries; a record of odd length takes its first byte alone first): records sorted longest
    first and right-aligned, so at column j the records already started are the leading rows. The
    matrix is gathered a block of columns at a time, at most about CRC_BLOCK_BYTES bytes.
    """
    buffer = np.asarray(buffer, dtype=np.uint8)
    lengths = np.asarray(lengths, dtype=np.int64)
    if not lengths.size:
        return np.zeros(0, dtype=np.uint64)
    order = np.argsort(-lengths, kind="stable")
    lengths = lengths[order]
    starts = np.asarray(starts, dtype=np.int64)[order]
    crc = np.full(lengths.size, 0xFFFFFFFF, dtype=np.uint32)
    odd = np.flatnonzero(lengths % 2)
    crc[odd] = _TABLE[(crc[odd] ^ buffer[starts[odd]]) & 0xFF] ^ (crc[odd] >> 8)
    words = lengths // 2
    width = int(words[0])
    first = width - words  # word column at which each record starts
    begin = starts + lengths % 2  # first byte of each record's words
    # 16-bit words at even bytes, then at odd bytes, each after `width` zero words (read, unused, by rows
    # not started yet): word column j of row i is source[base[i] + j].
    even, odd_words = (buffer[s:s + (buffer.size - s) // 2 * 2].view("<u2") for s in (0, 1))
    source = np.concatenate([np.zeros(width, np.uint16), even, np.zeros(width, np.uint16), odd_words])
    base = np.where(begin % 2, 2 * width + even.size, width) + begin // 2 - first
    block = max(1, CRC_BLOCK_BYTES // (2 * lengths.size))
    for low in range(0, width, block):
        columns = np.arange(low, min(low + block, width))
        started = np.searchsorted(first, columns, side="right")  # rows started by each column
        matrix = source[columns[:, None] + base[None, :started[-1]]]
        for j, k in enumerate(started.tolist()):
            now = crc[:k]
            crc[:k] = _TABLE16[(now ^ matrix[j, :k]) & 0xFFFF] ^ (now >> 16)
    crc = (crc ^ np.uint32(0xFFFFFFFF)).astype(np.uint64)
    masked = ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + 0xA282EAD8) & 0xFFFFFFFF
    out = np.empty_like(masked)
    out[order] = masked
    return out


def _event_class():
    try:
        from tensorboard.compat.proto import event_pb2
    except ImportError as exc:
        raise LogReadError("reading TensorBoard event files needs the tensorboard package: "
                           f"{install_hint('logs')} ({exc})") from exc
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


def _varint(buffer, position, rows):
    """Protobuf varints starting at ``position`` (for ``rows``): value, byte count, and rows whose
    varint ended within 10 bytes."""
    value = np.zeros(position.size, dtype=np.uint64)
    count = np.zeros(position.size, dtype=np.int64)
    active = rows.copy()
    for k in range(10):
        byte = buffer[position + k].astype(np.uint64)
        value |= np.where(active, (byte & np.uint64(0x7F)) << np.uint64(7 * k), np.uint64(0))
        count += active
        active &= byte >= 0x80
        if not active.any():
            break
    return value, count, rows & ~active


def _simple_scalars(data, offsets, lengths):
    """Decode, for all records at once, the events that hold exactly one ``simple_value`` scalar.

    Such an event (as tensorboardX, PyTorch and TF1 write a scalar) is, in protobuf's wire format,
    ``09 <wall_time f64> [10 <step varint>] 2a <len> 0a <len> 0a <len> <tag> 15 <value f32>`` and
    nothing else. Returns a mask of the records of exactly that shape and their step, wall time,
    value, and tag position and length; every other record goes through the protobuf class.
    """
    buffer = np.frombuffer(data + bytes(32), dtype=np.uint8)  # padding: reads past a record stay in bounds
    limit = len(data)
    end = offsets + 12 + lengths
    at = offsets + 12

    def byte_is(position, value):
        return buffer[np.minimum(position, limit)] == value

    ok = byte_is(at, 0x09)
    wall = buffer[(at + 1)[:, None] + np.arange(8)].copy().view("<f8").ravel()
    at = at + 9
    has_step = ok & byte_is(at, 0x10)
    step, count, good = _varint(buffer, np.minimum(at + 1, limit), has_step)
    ok &= good | ~has_step
    step = np.where(has_step, step, np.uint64(0)).view(np.int64)
    at = np.where(has_step, at + 1 + count, at)
    for marker in (0x2A, 0x0A):  # the summary, then its one value, each running to the record's end
        ok &= byte_is(at, marker)
        size, count, good = _varint(buffer, np.minimum(at + 1, limit), ok)
        ok &= good
        at = at + 1 + count
        ok &= at + size.astype(np.int64) == end
    ok &= byte_is(at, 0x0A)
    tag_length, count, good = _varint(buffer, np.minimum(at + 1, limit), ok)
    ok &= good
    tag_start = at + 1 + count
    tag_length = tag_length.astype(np.int64)
    at = tag_start + tag_length
    ok &= (at + 5 == end) & byte_is(at, 0x15)
    at = np.minimum(at, limit)
    value = buffer[(at + 1)[:, None] + np.arange(4)].copy().view("<f4").ravel().astype(float)
    return ok, step, wall, value, tag_start, tag_length


def _tag_names(data, tag_start, tag_length):
    """The distinct tags (strings) and each record's index into them."""
    buffer = np.frombuffer(data, dtype=np.uint8)
    codes = np.empty(tag_start.size, dtype=np.intp)
    lookup = {}
    for length in np.unique(tag_length).tolist():
        which = np.flatnonzero(tag_length == length)
        rows = np.ascontiguousarray(buffer[tag_start[which, None] + np.arange(length)])
        distinct, inverse = np.unique(rows.view(f"V{max(length, 1)}").ravel(), return_inverse=True)
        local = np.asarray([lookup.setdefault(bytes(raw)[:length].decode("utf-8", errors="replace"), len(lookup))
                            for raw in distinct], dtype=np.intp)
        codes[which] = local[inverse.ravel()]
    return list(lookup), codes


def read_events(path, fast=True):
    """Scalars of one event file as a :class:`Piece` (one record per scalar value, in the order written).

    ``fast``: decode plain ``simple_value`` scalar events with numpy (identical results, checked
    by the tests against the protobuf class); ``False`` decodes every event with the protobuf class.
    """
    event_class = _event_class()
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise FileProblem("unreadable", str(exc)) from exc
    if not data:
        raise FileProblem("empty", "the file has no bytes")
    offsets, lengths = frame_records(data)
    tag_codes, records = {}, []
    if fast and offsets.size:
        ok, step, wall, value, tag_start, tag_length = _simple_scalars(data, offsets, lengths)
        names, codes = _tag_names(data, tag_start[ok], tag_length[ok])
        tag_codes.update((name, i) for i, name in enumerate(names))
        fast_order = np.flatnonzero(ok)
        rest = np.flatnonzero(~ok)
    else:
        fast_order = np.zeros(0, dtype=np.int64)
        rest = np.arange(offsets.size)
    parse = event_class.FromString
    add, code_of = records.append, tag_codes.setdefault
    tensor_value = None
    for index, offset, length in zip(rest.tolist(), (offsets[rest] + 12).tolist(), lengths[rest].tolist()):
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
                add((index, event.step, code_of(item.tag, len(tag_codes)), item.simple_value, event.wall_time))
            elif kind == "tensor" and item.metadata.plugin_data.plugin_name in ("scalars", ""):
                if tensor_value is None:
                    from tensorboard.util import tensor_util

                    tensor_value = tensor_util.make_ndarray
                array = tensor_value(item.tensor)
                if array.size == 1 and array.dtype.kind in "fiub":
                    add((index, event.step, code_of(item.tag, len(tag_codes)), float(array.reshape(-1)[0]),
                         event.wall_time))
    if records:
        slow = [np.asarray(column) for column in zip(*records)]
    else:
        slow = [np.zeros(0, dtype=np.int64)] * 5
    record = np.concatenate([fast_order, slow[0]])
    if not record.size:
        raise FileProblem("empty", f"no scalar summaries in {len(offsets)} records")
    # The order written (one record may hold several values); numpy's scalars alone are in it already.
    order = np.argsort(record, kind="stable") if records else None

    def pick(fast_part, slow_part, dtype):
        if order is None:
            return np.asarray(fast_part, dtype=dtype)
        return np.concatenate([np.asarray(fast_part, dtype=dtype), np.asarray(slow_part, dtype=dtype)])[order]

    if fast_order.size:
        fast_columns = (step[ok], codes, value[ok], wall[ok])
    else:
        fast_columns = (np.zeros(0),) * 4
    return [Piece(tuple(tag_codes), pick(fast_columns[0], slow[1], np.int64), pick(fast_columns[1], slow[2], np.intp),
                  pick(fast_columns[2], slow[3], float), wall_time=pick(fast_columns[3], slow[4], float))]
