package io.sparkbloom;

import java.io.IOException;

/**
 * Bytes that do not hold a valid filter: a wrong magic number, an unknown version, strategy
 * or encoding, an impossible size, a truncated stream or a checksum mismatch. The message
 * names the offending field, e.g. {@code "corrupt filter: crc32: stored 0x1234abcd, computed
 * 0x8765dcba"}.
 */
public class CorruptFilterException extends IOException {
  private static final long serialVersionUID = 1L;

  /** An exception whose message names the corrupt field and what is wrong with it. */
  public CorruptFilterException(String message) {
    super(message);
  }

  /** An exception whose message names the corrupt field, caused by {@code cause}. */
  public CorruptFilterException(String message, Throwable cause) {
    super(message, cause);
  }
}
