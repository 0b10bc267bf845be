/**
 * Which peers' `X-Forwarded-For` the embedded listeners believe, and the caller's address it
 * gives, as Express's `trust proxy` does (with its own library, proxy-addr): the addresses are
 * read from the peer back through the header, right to left, while each is a trusted proxy; the
 * first that is not is the caller. A client can write anything at the header's left, so only the
 * address the last trusted hop appended is ever taken, never a value further left.
 *
 * `loopback` by default: a reverse proxy on this machine, or the demo, which sends each device's
 * address from here; any other peer's header is ignored. `true` trusts every peer (a private
 * network where only proxies reach the service), `false` none, or a list of CIDR ranges and the
 * names `loopback`, `linklocal`, `uniquelocal`.
 */
import proxyaddr from "proxy-addr";

export type TrustProxy = boolean | readonly string[];

export const DEFAULT_TRUST_PROXY: TrustProxy = ["loopback"];

/** `ATTRIBUTION_TRUST_PROXY` as a setting; throws naming a range that is none. */
export const parseTrustProxy = (value: string | undefined): TrustProxy => {
  const text = value?.trim() ?? "";
  if (text === "") return DEFAULT_TRUST_PROXY;
  if (text === "true") return true;
  if (text === "false" || text === "none") return false;
  const list = text
    .split(",")
    .map((part) => part.trim())
    .filter(Boolean);
  try {
    proxyaddr.compile(list);
  } catch (error) {
    throw new Error(
      `ATTRIBUTION_TRUST_PROXY: ${(error as Error).message} (true, false, or addresses, CIDR ranges and loopback, linklocal, uniquelocal, comma-separated)`,
    );
  }
  return list;
};

/** The caller's address from the peer's and the `X-Forwarded-For` values, under the setting. */
export const callerAddressFrom = (trust: TrustProxy) => {
  const trusted =
    trust === true ? () => true : trust === false ? () => false : proxyaddr.compile([...trust]);
  return (peer: string, forwardedFor: readonly string[]): string => {
    const request = {
      connection: { remoteAddress: peer },
      headers: forwardedFor.length > 0 ? { "x-forwarded-for": forwardedFor.join(",") } : {},
    };
    return proxyaddr(request as unknown as Parameters<typeof proxyaddr>[0], trusted);
  };
};
