package io.flutter.plugin.common;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Flutter's StandardMessageCodec, the values a channel carries between Dart and the platform:
 * null, booleans, Integer (int32), Long (int64), Double, String, byte[], int[], long[],
 * double[], float[], List and Map, in the host's byte order, a size in 1, 3 or 5 bytes. Any
 * other value (an enum, a Uri, an app's object) throws IllegalArgumentException, as it does in
 * Flutter.
 */
public class StandardMessageCodec {
  public static final StandardMessageCodec INSTANCE = new StandardMessageCodec();
  private static final boolean LITTLE_ENDIAN = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
  private static final byte NULL = 0;
  private static final byte TRUE = 1;
  private static final byte FALSE = 2;
  private static final byte INT = 3;
  private static final byte LONG = 4;
  private static final byte BIGINT = 5;
  private static final byte DOUBLE = 6;
  private static final byte STRING = 7;
  private static final byte BYTE_ARRAY = 8;
  private static final byte INT_ARRAY = 9;
  private static final byte LONG_ARRAY = 10;
  private static final byte DOUBLE_ARRAY = 11;
  private static final byte LIST = 12;
  private static final byte MAP = 13;
  private static final byte FLOAT_ARRAY = 14;

  public ByteBuffer encodeMessage(Object message) {
    if (message == null) return null;
    ByteArrayOutputStream stream = new ByteArrayOutputStream();
    writeValue(stream, message);
    ByteBuffer buffer = ByteBuffer.allocateDirect(stream.size());
    buffer.put(stream.toByteArray());
    return buffer;
  }

  public Object decodeMessage(ByteBuffer message) {
    if (message == null) return null;
    message.order(ByteOrder.nativeOrder());
    Object value = readValue(message);
    if (message.hasRemaining()) throw new IllegalArgumentException("Message corrupted");
    return value;
  }

  protected static void writeSize(ByteArrayOutputStream stream, int value) {
    if (value < 254) {
      stream.write(value);
    } else if (value <= 0xffff) {
      stream.write(254);
      writeChar(stream, value);
    } else {
      stream.write(255);
      writeInt(stream, value);
    }
  }

  protected static void writeChar(ByteArrayOutputStream stream, int value) {
    if (LITTLE_ENDIAN) {
      stream.write(value);
      stream.write(value >>> 8);
    } else {
      stream.write(value >>> 8);
      stream.write(value);
    }
  }

  protected static void writeInt(ByteArrayOutputStream stream, int value) {
    if (LITTLE_ENDIAN) {
      for (int shift = 0; shift < 32; shift += 8) stream.write(value >>> shift);
    } else {
      for (int shift = 24; shift >= 0; shift -= 8) stream.write(value >>> shift);
    }
  }

  protected static void writeLong(ByteArrayOutputStream stream, long value) {
    if (LITTLE_ENDIAN) {
      for (int shift = 0; shift < 64; shift += 8) stream.write((byte) (value >>> shift));
    } else {
      for (int shift = 56; shift >= 0; shift -= 8) stream.write((byte) (value >>> shift));
    }
  }

  protected static void writeDouble(ByteArrayOutputStream stream, double value) {
    writeLong(stream, Double.doubleToLongBits(value));
  }

  protected static void writeBytes(ByteArrayOutputStream stream, byte[] bytes) {
    writeSize(stream, bytes.length);
    stream.write(bytes, 0, bytes.length);
  }

  protected static void writeAlignment(ByteArrayOutputStream stream, int alignment) {
    int mod = stream.size() % alignment;
    if (mod != 0) for (int i = 0; i < alignment - mod; i++) stream.write(0);
  }

  protected void writeValue(ByteArrayOutputStream stream, Object value) {
    if (value == null || value.equals(null)) {
      stream.write(NULL);
    } else if (value instanceof Boolean) {
      stream.write(((Boolean) value) ? TRUE : FALSE);
    } else if (value instanceof Number) {
      if (value instanceof Integer || value instanceof Short || value instanceof Byte) {
        stream.write(INT);
        writeInt(stream, ((Number) value).intValue());
      } else if (value instanceof Long) {
        stream.write(LONG);
        writeLong(stream, (long) value);
      } else if (value instanceof Float || value instanceof Double) {
        stream.write(DOUBLE);
        writeAlignment(stream, 8);
        writeDouble(stream, ((Number) value).doubleValue());
      } else if (value instanceof BigInteger) {
        stream.write(BIGINT);
        writeBytes(stream, ((BigInteger) value).toString(16).getBytes(StandardCharsets.UTF_8));
      } else {
        throw new IllegalArgumentException("Unsupported Number type: " + value.getClass());
      }
    } else if (value instanceof CharSequence) {
      stream.write(STRING);
      writeBytes(stream, value.toString().getBytes(StandardCharsets.UTF_8));
    } else if (value instanceof byte[]) {
      stream.write(BYTE_ARRAY);
      writeBytes(stream, (byte[]) value);
    } else if (value instanceof int[]) {
      stream.write(INT_ARRAY);
      int[] array = (int[]) value;
      writeSize(stream, array.length);
      writeAlignment(stream, 4);
      for (int n : array) writeInt(stream, n);
    } else if (value instanceof long[]) {
      stream.write(LONG_ARRAY);
      long[] array = (long[]) value;
      writeSize(stream, array.length);
      writeAlignment(stream, 8);
      for (long n : array) writeLong(stream, n);
    } else if (value instanceof double[]) {
      stream.write(DOUBLE_ARRAY);
      double[] array = (double[]) value;
      writeSize(stream, array.length);
      writeAlignment(stream, 8);
      for (double d : array) writeDouble(stream, d);
    } else if (value instanceof List) {
      stream.write(LIST);
      List<?> list = (List<?>) value;
      writeSize(stream, list.size());
      for (Object o : list) writeValue(stream, o);
    } else if (value instanceof Map) {
      stream.write(MAP);
      Map<?, ?> map = (Map<?, ?>) value;
      writeSize(stream, map.size());
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        writeValue(stream, entry.getKey());
        writeValue(stream, entry.getValue());
      }
    } else if (value instanceof float[]) {
      stream.write(FLOAT_ARRAY);
      float[] array = (float[]) value;
      writeSize(stream, array.length);
      writeAlignment(stream, 4);
      for (float f : array) writeInt(stream, Float.floatToIntBits(f));
    } else {
      throw new IllegalArgumentException(
          "Unsupported value: '" + value + "' of type '" + value.getClass() + "'");
    }
  }

  protected static int readSize(ByteBuffer buffer) {
    if (!buffer.hasRemaining()) throw new IllegalArgumentException("Message corrupted");
    int value = buffer.get() & 0xff;
    if (value < 254) return value;
    if (value == 254) return buffer.getChar();
    return buffer.getInt();
  }

  protected static byte[] readBytes(ByteBuffer buffer) {
    byte[] bytes = new byte[readSize(buffer)];
    buffer.get(bytes);
    return bytes;
  }

  protected static void readAlignment(ByteBuffer buffer, int alignment) {
    int mod = buffer.position() % alignment;
    if (mod != 0) buffer.position(buffer.position() + alignment - mod);
  }

  protected final Object readValue(ByteBuffer buffer) {
    if (!buffer.hasRemaining()) throw new IllegalArgumentException("Message corrupted");
    return readValueOfType(buffer.get(), buffer);
  }

  protected Object readValueOfType(byte type, ByteBuffer buffer) {
    switch (type) {
      case NULL:
        return null;
      case TRUE:
        return true;
      case FALSE:
        return false;
      case INT:
        return buffer.getInt();
      case LONG:
        return buffer.getLong();
      case BIGINT:
        return new BigInteger(new String(readBytes(buffer), StandardCharsets.UTF_8), 16);
      case DOUBLE:
        readAlignment(buffer, 8);
        return buffer.getDouble();
      case STRING:
        return new String(readBytes(buffer), StandardCharsets.UTF_8);
      case BYTE_ARRAY:
        return readBytes(buffer);
      case INT_ARRAY: {
        int[] array = new int[readSize(buffer)];
        readAlignment(buffer, 4);
        for (int i = 0; i < array.length; i++) array[i] = buffer.getInt();
        return array;
      }
      case LONG_ARRAY: {
        long[] array = new long[readSize(buffer)];
        readAlignment(buffer, 8);
        for (int i = 0; i < array.length; i++) array[i] = buffer.getLong();
        return array;
      }
      case DOUBLE_ARRAY: {
        double[] array = new double[readSize(buffer)];
        readAlignment(buffer, 8);
        for (int i = 0; i < array.length; i++) array[i] = buffer.getDouble();
        return array;
      }
      case LIST: {
        int size = readSize(buffer);
        List<Object> list = new ArrayList<>(size);
        for (int i = 0; i < size; i++) list.add(readValue(buffer));
        return list;
      }
      case MAP: {
        int size = readSize(buffer);
        Map<Object, Object> map = new HashMap<>();
        for (int i = 0; i < size; i++) map.put(readValue(buffer), readValue(buffer));
        return map;
      }
      case FLOAT_ARRAY: {
        float[] array = new float[readSize(buffer)];
        readAlignment(buffer, 4);
        for (int i = 0; i < array.length; i++) array[i] = buffer.getFloat();
        return array;
      }
      default:
        throw new IllegalArgumentException("Message corrupted");
    }
  }
}
