/**
 * A caller's IP address as the touch side keeps it. The touch store keys clicks by the address
 * the matcher compares (IPv4 whole; IPv6 by its /64, the prefix one device or home network
 * holds while its interface id changes), and only until the touch expires; the lake keeps
 * addresses truncated (IPv4 /24, IPv6 /48), which reports need and which name no device.
 * Parsing and ranges are ipaddr.js's.
 */
import ipaddr from "ipaddr.js";

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** An address parsed, an IPv4-mapped IPv6 one (`::ffff:1.2.3.4`) as the IPv4 it maps. */
const parse = (text: string | null | undefined): Address | undefined => {
  if (!text || !ipaddr.isValid(text.trim())) return undefined;
  return ipaddr.process(text.trim());
};

const network = (address: Address, bits: number): string =>
  address.kind() === "ipv4"
    ? ipaddr.IPv4.networkAddressFromCIDR(`${address.toString()}/${bits}`).toString()
    : ipaddr.IPv6.networkAddressFromCIDR(`${address.toString()}/${bits}`).toString();

/** The address in its canonical text, or null when it is none. */
export const normalizeIp = (text: string | null | undefined): string | null =>
  parse(text)?.toString() ?? null;

/** What the matcher compares: an IPv4 address whole, an IPv6 address's /64 (`2a00:1450::/64`). */
export const ipMatchKey = (text: string | null | undefined): string | null => {
  const address = parse(text);
  if (!address) return null;
  return address.kind() === "ipv4" ? address.toString() : `${network(address, 64)}/64`;
};

/** What the lake keeps: IPv4 to its /24 (`81.2.69.0`), IPv6 to its /48. */
export const truncatedIp = (text: string | null | undefined): string | null => {
  const address = parse(text);
  if (!address) return null;
  return network(address, address.kind() === "ipv4" ? 24 : 48);
};

/**
 * True for an address on the public internet. Private, loopback, link-local, unique-local,
 * carrier-NAT (100.64.0.0/10), documentation and other reserved ranges say nothing about
 * which device called: many share each of them.
 */
export const isPublicIp = (text: string | null | undefined): boolean =>
  parse(text)?.range() === "unicast";
