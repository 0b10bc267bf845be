/**
 * Passwords of the embedded runtime's dashboard users, stored as scrypt hashes with their own
 * salt and cost (on AWS, Cognito keeps them instead). `scrypt$N$r$p$salt$hash`, base64url.
 */
import { randomBytes, randomInt, scrypt, timingSafeEqual } from "node:crypto";

const COST = { N: 16_384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;

const derive = (password: string, salt: Buffer, cost: { N: number; r: number; p: number }) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { ...cost, maxmem: 64 * 1024 * 1024 }, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  );

/** The shortest password accepted: NIST SP 800-63B's floor for a chosen password. */
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 256;

export const hashPassword = async (password: string): Promise<string> => {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return [
    "scrypt",
    COST.N,
    COST.r,
    COST.p,
    salt.toString("base64url"),
    key.toString("base64url"),
  ].join("$");
};

export const verifyPassword = async (password: string, stored: string): Promise<boolean> => {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !n || !r || !p || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await derive(password, Buffer.from(salt, "base64url"), {
    N: Number(n),
    r: Number(r),
    p: Number(p),
  });
  return key.length === expected.length && timingSafeEqual(key, expected);
};

/** A lowercase letter, an uppercase one, a digit and a symbol: each printed password has one. */
const PASSWORD_CLASSES = [
  "abcdefghijklmnopqrstuvwxyz",
  "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
  "0123456789",
  "-_",
] as const;

/**
 * A password to print once for a new account: 20 characters easy to copy (base64url's), 16 of
 * them random (96 bits) and one of each class at a random place, so that a policy asking for
 * every class (Cognito's user pool on AWS) takes it every time, not only when chance put a
 * symbol in.
 */
export const generatePassword = (): string => {
  const chars = [
    ...randomBytes(12).toString("base64url"),
    ...PASSWORD_CLASSES.map((set) => set[randomInt(set.length)] ?? ""),
  ];
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j] ?? "", chars[i] ?? ""];
  }
  return chars.join("");
};
