"""CRC-32C (Castagnoli), as TensorFlow's files store it.

TensorFlow never stores a raw CRC next to the bytes it covers: it stores the *masked*
CRC, rotated right by 15 bits plus a constant, because a CRC of data that itself holds
CRCs is weak (lib/hash/crc32c.h). The arithmetic comes from google-crc32c (a maintained
C implementation with a pure-Python fallback).
"""
import google_crc32c

__all__ = ["value", "extend", "mask", "unmask"]

_MASK_DELTA = 0xA282EAD8


def value(data):
    """CRC-32C of `data` (bytes-like)."""
    return google_crc32c.value(bytes(data))


def extend(crc, data):
    """CRC-32C of (the bytes that gave `crc`) + `data`."""
    return google_crc32c.extend(crc, bytes(data))


def mask(crc):
    """The CRC as TensorFlow stores it: rotated right 15 bits, plus a constant."""
    return ((((crc >> 15) | (crc << 17)) & 0xFFFFFFFF) + _MASK_DELTA) & 0xFFFFFFFF


def unmask(masked):
    rot = (masked - _MASK_DELTA) & 0xFFFFFFFF
    return ((rot >> 17) | (rot << 15)) & 0xFFFFFFFF
