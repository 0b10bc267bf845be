/**
 * Where a postback or webhook may go. A URL an app's owner types, or a DNS name that answers
 * differently tomorrow, must never turn the service into a way to reach its own network: the
 * cloud's metadata endpoint, a database on a private address, the machine's own ports. So a
 * URL is https, and every address its name resolves to is a public one; checked once when the
 * configuration is saved (the name and each of its addresses, through an injected resolver)
 * and again at the moment of sending, on the address the socket actually connects to (the
 * `lookup` hook below, given to the HTTP agent), so that a name re-pointed after the check
 * (DNS rebinding) is refused too.
 *
 * The sizes of what is sent and read are bounded here as well.
 */
import type { LookupAddress, LookupOptions } from "node:dns";
import type { LookupFunction } from "node:net";
import ipaddr from "ipaddr.js";
import { SECOND_MS } from "../domain/time.ts";

/** The bounds of one postback or webhook request and of what is read of its answer. */
export const REQUEST_LIMITS = {
  /** A filled URL longer than this is not sent: partners' own limits are about 8 KB. */
  maxUrlBytes: 8 * 1024,
  /** A filled body longer than this is not sent. */
  maxBodyBytes: 64 * 1024,
  /** The template's headers, names and values together. */
  maxHeaderBytes: 8 * 1024,
  maxHeaders: 20,
  /** What is read of an answer before the rest is dropped. */
  maxAnswerReadBytes: 64 * 1024,
  /** What the attempt's log keeps of the answer. */
  answerExcerptBytes: 1024,
  /** An attempt with no complete answer by then is a time-out (and is retried). */
  timeoutMs: 10 * SECOND_MS,
  /** Redirects are never followed: a 3xx is the answer (and is final). */
  maxRedirects: 0,
} as const;

/** The operator's setting: loopback allowed, for tests' mock networks on this machine. */
export interface UrlSafetyOptions {
  readonly allowLoopback?: boolean;
}

/** The cloud metadata endpoints: link-local or unique-local, named apart for a clear refusal. */
const METADATA_ADDRESSES = new Set(["169.254.169.254", "fd00:ec2::254"]);

/**
 * IPv4-compatible IPv6 addresses (::/96, deprecated by RFC 4291): `::a9fe:a9fe` embeds
 * 169.254.169.254, yet ipaddr.js calls the range unicast. Refused whole, `::` and `::1` aside,
 * which are judged as the unspecified and the loopback address.
 */
const IPV4_COMPATIBLE = ipaddr.parseCIDR("::/96");

/**
 * Whether an address is in ::/96, in either spelling (`::a9fe:a9fe`, `::169.254.169.254`).
 * ipaddr.js reads a dotted tail after `::` as IPv4-mapped (`::ffff:…`), which a socket does
 * not: the tail is written in hex before it is parsed, as the URL parser writes it.
 */
const isIpv4Compatible = (bare: string): boolean => {
  const hex = bare.replace(
    /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/,
    (_tail, a: string, b: string, c: string, d: string) =>
      `${((Number(a) << 8) | Number(b)).toString(16)}:${((Number(c) << 8) | Number(d)).toString(16)}`,
  );
  if (!ipaddr.IPv6.isValid(hex)) return false;
  const address = ipaddr.IPv6.parse(hex);
  const range = address.range();
  return range !== "unspecified" && range !== "loopback" && address.match(IPV4_COMPATIBLE);
};

/** Why an address is refused; null for a public one. */
export type AddressRefusal =
  | "loopback"
  | "private"
  | "link-local"
  | "carrier-nat"
  | "metadata"
  | "unspecified"
  | "multicast"
  | "reserved"
  | "not-an-address";

const REFUSALS: Readonly<Record<string, AddressRefusal>> = {
  loopback: "loopback",
  private: "private",
  uniqueLocal: "private",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-nat",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "multicast",
};

/**
 * Why an address may not be sent to, or null when it is a public unicast one. Only ipaddr.js's
 * `unicast` range passes: every special range (documentation, benchmarking, 6to4, Teredo and
 * NAT64 prefixes, which embed an IPv4 address that may be private, reserved ones) is refused
 * with the rest, and so is the IPv4-compatible ::/96, which ipaddr.js counts as unicast. An IPv4-mapped IPv6 address (`::ffff:10.0.0.1`) is judged as the IPv4 address
 * it maps.
 */
export const addressRefusal = (
  text: string,
  options: UrlSafetyOptions = {},
): AddressRefusal | null => {
  const bare = text.replace(/^\[(.*)\]$/, "$1");
  if (!ipaddr.isValid(bare)) return "not-an-address";
  if (isIpv4Compatible(bare)) return "reserved";
  const address = ipaddr.process(bare);
  const canonical = address.toString();
  if (METADATA_ADDRESSES.has(canonical)) return "metadata";
  const range = address.range();
  if (range === "unicast") return null;
  if (range === "loopback" && options.allowLoopback) return null;
  return REFUSALS[range] ?? "reserved";
};

export type UrlCheck =
  | { readonly ok: true; readonly url: URL }
  | { readonly ok: false; readonly problem: string };

const refused = (problem: string): UrlCheck => ({ ok: false, problem });

const byteLength = (text: string): number => Buffer.byteLength(text, "utf8");

/** The URL's host as a bare name or address (IPv6 without its brackets). */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, "$1");

/** A name is a literal address when ipaddr.js reads it as one (the URL parser normalised it). */
const isLiteralAddress = (host: string): boolean => ipaddr.isValid(host);

/** Whether a URL's host is this machine: `localhost`, or a loopback address (127.0.0.0/8, ::1). */
export const isLoopbackUrl = (text: string): boolean => {
  let host: string;
  try {
    host = hostOf(new URL(text)).replace(/\.$/, "");
  } catch {
    return false;
  }
  return host === "localhost" || (isLiteralAddress(host) && addressRefusal(host) === "loopback");
};

/**
 * What can be told of a URL without resolving it: https (http only to loopback when the
 * operator allows loopback), no credentials in it, no fragment, within the size bound, and a
 * literal address host that is public.
 */
export const checkUrlSyntax = (text: string, options: UrlSafetyOptions = {}): UrlCheck => {
  if (byteLength(text) > REQUEST_LIMITS.maxUrlBytes) {
    return refused(`is longer than ${REQUEST_LIMITS.maxUrlBytes} bytes`);
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return refused("is not an absolute URL");
  }
  const host = hostOf(url);
  if (url.username !== "" || url.password !== "") {
    // Credentials in a URL end up in logs and in every proxy's; partners take keys as values.
    return refused("must not carry a user name or password");
  }
  if (url.hash !== "") return refused("must not have a fragment");
  const loopbackHttp =
    url.protocol === "http:" &&
    options.allowLoopback === true &&
    (host === "localhost" || (isLiteralAddress(host) && addressRefusal(host) === "loopback"));
  if (url.protocol !== "https:" && !loopbackHttp) return refused("must be https");
  if (isLiteralAddress(host)) {
    const refusal = addressRefusal(host, options);
    if (refusal) return refused(`points to a ${refusal} address (${host})`);
  }
  return { ok: true, url };
};

/** Resolves a name to every address it has, as DNS answers now. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>;

/**
 * The check when a configuration is saved: the URL's form, then every address its name
 * resolves to. One private address among public ones refuses the name: whoever controls the
 * zone chooses which one a connection gets.
 */
export const checkConfiguredUrl = async (
  text: string,
  resolve: Resolver,
  options: UrlSafetyOptions = {},
): Promise<UrlCheck> => {
  const syntax = checkUrlSyntax(text, options);
  if (!syntax.ok) return syntax;
  const host = hostOf(syntax.url);
  if (isLiteralAddress(host)) return syntax;
  let addresses: readonly LookupAddress[];
  try {
    addresses = await resolve(host);
  } catch {
    return refused(`names a host that does not resolve (${host})`);
  }
  if (addresses.length === 0) return refused(`names a host that does not resolve (${host})`);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, options);
    if (refusal) return refused(`resolves to a ${refusal} address (${host} → ${address})`);
  }
  return syntax;
};

/** The error code a refused address fails a connection with; the attempt is final. */
export const UNSAFE_ADDRESS_CODE = "ERR_POSTBACK_UNSAFE_ADDRESS";

export const isUnsafeAddressError = (error: unknown): boolean =>
  error instanceof Error && (error as NodeJS.ErrnoException).code === UNSAFE_ADDRESS_CODE;

const unsafeAddressError = (hostname: string, address: string, refusal: AddressRefusal) => {
  const error: NodeJS.ErrnoException = new Error(
    `${hostname} resolves to a ${refusal} address (${address}); postbacks go to public addresses only`,
  );
  error.code = UNSAFE_ADDRESS_CODE;
  return error;
};

/** `dns.lookup` asked for every address (`all: true`): what the hook wraps. */
export type LookupAll = (
  hostname: string,
  options: LookupOptions & { all: true },
  callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * The `lookup` of the agent that sends postbacks and webhooks: it resolves the name with the
 * injected lookup (`dns.lookup` in production), refuses the connection when any address is
 * not public, and otherwise hands the socket exactly the addresses it checked. The socket
 * connects to what this returns, so the address checked is the address used: a name that
 * answered with a public address when the configuration was saved and a private one now is
 * refused now. (A URL whose host is a literal address never reaches a lookup; checkUrlSyntax
 * checks it.)
 */
export const safeLookup = (base: LookupAll, options: UrlSafetyOptions = {}): LookupFunction =>
  ((hostname: string, lookupOptions: LookupOptions, callback: LookupCallback) => {
    base(hostname, { ...lookupOptions, all: true }, (error, addresses) => {
      if (error) {
        callback(error, "", 0);
        return;
      }
      const first = addresses[0];
      if (!first) {
        const empty: NodeJS.ErrnoException = new Error(`${hostname} has no address`);
        empty.code = "ENOTFOUND";
        callback(empty, "", 0);
        return;
      }
      for (const { address } of addresses) {
        const refusal = addressRefusal(address, options);
        if (refusal) {
          callback(unsafeAddressError(hostname, address, refusal), "", 0);
          return;
        }
      }
      // Node asks for every address when it races families (autoSelectFamily), else for one.
      if (lookupOptions.all) callback(null, addresses);
      else callback(null, first.address, first.family);
    });
  }) as LookupFunction;

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/** How long a connection to a partner is kept, idle, for the next attempt to the same host. */
export const KEPT_CONNECTION_IDLE_MS = 4_000;

/**
 * The options of the HTTP(S) agent that sends postbacks and webhooks: the safe lookup for every
 * connection it opens, and connections kept alive between attempts to the same host, as a burst
 * of postbacks to one network would otherwise open (and, over TLS, negotiate) one each. A kept
 * connection goes to the address checked when it opened; it is closed after `idleMs` without a
 * request, so a name re-pointed since is looked up, and checked, again within seconds.
 */
export const safeAgentOptions = (
  base: LookupAll,
  options: UrlSafetyOptions = {},
  idleMs = KEPT_CONNECTION_IDLE_MS,
) => ({
  lookup: safeLookup(base, options),
  keepAlive: true,
  // Node's agent closes a free socket once it has been idle this long.
  timeout: idleMs,
});
