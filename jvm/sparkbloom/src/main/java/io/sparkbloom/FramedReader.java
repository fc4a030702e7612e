package io.sparkbloom;

import java.io.IOException;
import java.io.InputStream;
import java.util.Arrays;

/**
 * Reads one filter from a stream whose fixed-size header tells the length of the rest (FORMAT.md
 * and Guava's {@code writeTo} stream alike), consuming exactly its bytes. Memory grows only as
 * bytes arrive: a 24-byte header claiming 2 GiB cannot make the reader allocate 2 GiB before
 * the stream has delivered them (at most twice the bytes read plus {@link #FIRST_CHUNK}).
 */
final class FramedReader {
  /** The largest Java array the JVMs allocate (a few header words below Integer.MAX_VALUE). */
  static final int MAX_ARRAY_LENGTH = Integer.MAX_VALUE - 8;

  /** Bytes allocated beyond the header before any payload has been read. */
  private static final int FIRST_CHUNK = 64 * 1024;

  /**
   * The whole length of the filter a header starts, validated (throws naming the field), with
   * a filter above {@code maxNumBits} bits refused.
   */
  interface TotalLength {
    long of(byte[] header, long maxNumBits) throws CorruptFilterException;
  }

  /** The filter whose bytes are exactly {@code bytes}, refusing one above {@code maxNumBits}. */
  interface Decoder<T> {
    T decode(byte[] bytes, long maxNumBits) throws CorruptFilterException;
  }

  /** {@link TotalLength} with the limit already applied. */
  interface HeaderLength {
    long of(byte[] header) throws CorruptFilterException;
  }

  private FramedReader() {}

  /**
   * Reads and decodes one filter of a format whose header is {@code headerLength} bytes: the
   * shared body of {@code BloomFilter.readFrom}, {@code CountingBloomFilter.readFrom} and {@code
   * GuavaInterop.readGuava}.
   *
   * @throws IllegalArgumentException if {@code maxNumBits} is negative
   */
  static <T> T readFilter(
      InputStream in,
      long maxNumBits,
      int headerLength,
      String payloadName,
      TotalLength totalLength,
      Decoder<T> decoder)
      throws IOException {
    java.util.Objects.requireNonNull(in, "in is null");
    long limit = DecodeLimit.check(maxNumBits, "maxNumBits");
    byte[] all = read(in, headerLength, header -> totalLength.of(header, limit), payloadName);
    return decoder.decode(all, limit);
  }

  /**
   * The bytes of one filter: its header of {@code headerLength} bytes, then the rest, whose
   * length {@code totalLength} reads from the header.
   *
   * @param payloadName what follows the header, for the message when the stream ends early
   * @throws CorruptFilterException if the header is invalid or the stream ends early
   * @throws FilterTooLargeException if the filter would not fit a Java array
   * @throws IOException if {@code in} throws
   */
  static byte[] read(InputStream in, int headerLength, HeaderLength totalLength, String payloadName)
      throws IOException {
    byte[] header = new byte[headerLength];
    readFully(in, header, 0, headerLength, headerLength, "header");
    long total = totalLength.of(header);
    if (total > MAX_ARRAY_LENGTH) {
      throw new FilterTooLargeException(
          "filter of " + total + " serialized bytes exceeds the largest Java byte array ("
              + MAX_ARRAY_LENGTH + " bytes)");
    }
    byte[] all = Arrays.copyOf(header, (int) Math.min(total, (long) headerLength + FIRST_CHUNK));
    int filled = headerLength;
    while (filled < total) {
      if (filled == all.length) {
        all = Arrays.copyOf(all, (int) Math.min(total, 2L * all.length));
      }
      filled = readFully(in, all, filled, all.length, (int) total, payloadName);
    }
    return all;
  }

  /**
   * Reads into {@code buf} from {@code from} up to {@code to}; returns {@code to}. A stream that
   * ends first is a corrupt filter, whose message counts the bytes of the part named {@code
   * what}, which ends at {@code end}.
   */
  private static int readFully(InputStream in, byte[] buf, int from, int to, int end, String what)
      throws IOException {
    int done = from;
    while (done < to) {
      int n = in.read(buf, done, to - done);
      if (n < 0) {
        throw new CorruptFilterException(
            "corrupt filter: length: the stream ended after " + done + " of the " + end
                + " bytes of the filter (in the " + what + ")");
      }
      done += n;
    }
    return done;
  }
}
