/**
 * The values a sealed envelope can carry: exactly what JSON can represent, so a value sealed
 * by any SDK opens to the same value here. Anything JSON.stringify would silently change
 * (undefined, NaN, a Date, a class instance) is refused instead of altered.
 */
export type JsonValue =
  | string
  | number
  | boolean
  | null
  | JsonValue[]
  | { [key: string]: JsonValue };

const isPlainObject = (value: object): boolean => {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
};

const check = (value: unknown, path: string, ancestors: Set<object>): void => {
  if (value === null || typeof value === "string" || typeof value === "boolean") return;
  if (typeof value === "number") {
    if (!Number.isFinite(value)) throw new TypeError(`${path} is not a finite number`);
    return;
  }
  if (typeof value !== "object") throw new TypeError(`${path} is a ${typeof value}, not JSON`);
  if (ancestors.has(value)) throw new TypeError(`${path} is circular`);
  ancestors.add(value);
  if (Array.isArray(value)) {
    // Indexes, not for-of, so holes are seen (JSON.stringify would turn them into null).
    for (let index = 0; index < value.length; index++) {
      const item: unknown = value[index];
      if (item === undefined) throw new TypeError(`${path}[${index}] is undefined`);
      check(item, `${path}[${index}]`, ancestors);
    }
  } else {
    if (!isPlainObject(value)) throw new TypeError(`${path} is not a plain object`);
    for (const [key, item] of Object.entries(value)) {
      if (item === undefined) throw new TypeError(`${path}.${key} is undefined`);
      check(item, `${path}.${key}`, ancestors);
    }
  }
  ancestors.delete(value);
};

/** Throws a TypeError naming the first part of `value` that JSON cannot carry unchanged. */
export function assertJsonValue(value: unknown, path = "value"): asserts value is JsonValue {
  check(value, path, new Set());
}
