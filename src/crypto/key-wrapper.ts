/**
 * The port that keeps private keys out of storage in clear, where they are never kept: KMS on AWS,
 * a master key file in the embedded runtime. The context is bound to the wrapped bytes, so a
 * wrapped key copied to another app or key id does not unwrap.
 */
export type WrapContext = Readonly<Record<string, string>>;

export interface KeyWrapper {
  /** Returns a self-describing string, safe to store next to the data. */
  wrap(plaintext: Buffer, context: WrapContext): Promise<string>;
  /** Throws KeyUnwrapError when the wrapped key or its context does not check out. */
  unwrap(wrapped: string, context: WrapContext): Promise<Buffer>;
}

export type KeyUnwrapFailure = "malformed" | "wrong-master-key" | "authentication-failed";

/**
 * A stored wrapped key that cannot be unwrapped: a data or configuration problem on our
 * side, unlike a transient failure (KMS throttling), which adapters rethrow unchanged.
 */
export class KeyUnwrapError extends Error {
  constructor(
    readonly reason: KeyUnwrapFailure,
    message: string,
  ) {
    super(message);
    this.name = "KeyUnwrapError";
  }
}
