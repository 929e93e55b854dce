"""Float attributes as OpenVINO 2026.4 reads them (measured,
docs/ir-reader.md#floating-point-attributes): the f64
reading of Clamp's `min`/`max`, the same held in 32 bits for MVN's `eps`, and lists of them
(PriorBoxClustered's sizes)."""

from __future__ import annotations

import re
import struct

from irpool.parse.values import ASCII_BLANKS, Finding, Reading, ascii_digits_hint, rejected, show

# A real number as libstdc++'s `istream >> double` reads it, which OpenVINO uses for f64
# attributes (Clamp's min and max): blanks skipped, then the longest prefix of this form;
# the rest of the text is ignored. An exponent without digits is refused ("1e", "1ex").
_FLOAT_PREFIX = re.compile(
    r"[ \t\n\r\f\v]*([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?)(\d*))?", re.ASCII
)
# The only non-finite spellings OpenVINO accepts, each the whole text but for blanks.
_NON_FINITE = {"inf": float("inf"), "-inf": float("-inf"), "nan": float("nan")}


def float_text(value: float) -> str:
    """`value` written as briefly as it reads back exactly ("6", "0.1", "1e+30", "-inf")."""
    if value.is_integer() and abs(value) < 1e16:
        return "-0" if str(value) == "-0.0" else str(int(value))
    return repr(value)


def read_float(text: str) -> Reading[float]:
    """A 64-bit float (Clamp's `min`, `max`), read as OpenVINO 2026.4 reads it (measured,
    docs/ir-reader.md#floating-point-attributes): a decimal number after blanks, anything after
    it ignored ("0x1" is 0, "6x" is 6), a value beyond the f64 range refused ("1e400"),
    one below it read as 0; besides, exactly `inf`, `-inf` or `nan` between blanks."""
    body = text.strip(ASCII_BLANKS)
    if body in _NON_FINITE:
        return Reading(_NON_FINITE[body])
    match = _FLOAT_PREFIX.match(text)
    if match is None or (match.group(2) is not None and not match.group(3)):
        return rejected(f"cannot parse {show(text)} as a number" + ascii_digits_hint(text))
    value = float(match.group(0))  # Python rounds as glibc's strtod: to nearest
    if value in (float("inf"), float("-inf")):
        return rejected(
            f"{show(text)} is beyond the range of a 64-bit float; OpenVINO cannot parse it"
        )
    rest = text[match.end() :]
    if rest.strip(ASCII_BLANKS):
        written = float_text(value)
        return Reading(
            value, Finding("reinterpreted", f"{show(text)} is read as {written}", written)
        )
    return Reading(value)


_F32_MAX = 3.4028234663852886e38  # beyond it a double held as f32 is infinite


def read_float32(text: str) -> Reading[float]:
    """A float attribute an op holds in 32 bits (MVN's `eps`): read as `read_float` reads
    it, then rounded to f32 as the op stores it (measured: "1e-50" is 0, "1e-5" is
    9.999999747378752e-06, "1e39" is inf)."""
    reading = read_float(text)
    if reading.value is None:
        return reading
    value = reading.value
    if abs(value) > _F32_MAX and abs(value) != float("inf"):
        return Reading(float("inf") if value > 0 else float("-inf"), reading.finding)
    held: float = struct.unpack("<f", struct.pack("<f", value))[0]
    return Reading(held, reading.finding)


def read_float32_list(text: str) -> Reading[tuple[float, ...]]:
    """A comma-separated list of floats held in 32 bits (PriorBoxClustered's sizes and
    variances): each item read as `read_float32` reads one; "" is no item."""
    if text == "":
        return Reading(())
    values: list[float] = []
    problems: list[str] = []
    for item in text.split(","):
        reading = read_float32(item)
        if reading.value is None:
            problem = reading.finding.message if reading.finding else show(item)
            return rejected(f"{problem} (in {show(text)})")
        values.append(reading.value)
        if reading.finding is not None:
            problems.append(reading.finding.message)
    if problems:
        return Reading(tuple(values), Finding("reinterpreted", "; ".join(problems)))
    return Reading(tuple(values))
