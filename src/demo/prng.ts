/**
 * A small seeded PRNG (mulberry32) and the draws the demo needs. Demo data must be the same for
 * the same seed on every machine and Node version, which Math.random cannot give.
 */

export interface Random {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform integer in [min, max], both included. */
  int(min: number, max: number): number;
  /** Uniform in [min, max). */
  between(min: number, max: number): number;
  chance(probability: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** One item, with probability proportional to its weight. */
  weighted<T>(items: readonly (readonly [T, number])[]): T;
  /** Exponentially distributed with the given mean: many small values, a long tail. */
  exponential(mean: number): number;
  /** Lower-case hex digits. */
  hex(length: number): string;
  /** A version-4-shaped UUID (lower case), derived from the stream, so deterministic. */
  uuid(): string;
}

/** FNV-1a, 32 bits: turns names (app ids, campaign paths) into seeds. */
export const hashString = (text: string, basis = 0x811c9dc5): number => {
  let hash = basis >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash;
};

export const createRandom = (seed: number): Random => {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  const hex = (length: number): string => {
    let out = "";
    while (out.length < length)
      out += Math.floor(next() * 4_294_967_296)
        .toString(16)
        .padStart(8, "0");
    return out.slice(0, length);
  };
  const pick = <T>(items: readonly T[]): T => {
    const item = items[Math.floor(next() * items.length)];
    if (item === undefined) throw new RangeError("pick from an empty list");
    return item;
  };
  const weighted = <T>(items: readonly (readonly [T, number])[]): T => {
    const total = items.reduce((sum, [, weight]) => sum + weight, 0);
    let left = next() * total;
    for (const [item, weight] of items) {
      left -= weight;
      if (left < 0) return item;
    }
    // Only reachable through floating-point rounding on the last item.
    const last = items[items.length - 1];
    if (last === undefined) throw new RangeError("weighted pick from an empty list");
    return last[0];
  };
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    between: (min, max) => min + next() * (max - min),
    chance: (probability) => next() < probability,
    pick,
    weighted,
    exponential: (mean) => -mean * Math.log(1 - next()),
    hex,
    uuid: () => {
      const h = hex(32);
      const variant = "89ab"[Number.parseInt(h[16] ?? "0", 16) & 3];
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
    },
  };
};
