/**
 * The viewer's address as CloudFront forwards it, in `CloudFront-Viewer-Address`: the address
 * and the port the viewer connected from, `198.51.100.10:46532`, an IPv6 address unbracketed
 * (`2001:db8::1:46532`; a bracketed `[2001:db8::1]:46532` is read too). Any client can send the
 * header itself, so it is read only where the function's setting says a distribution that
 * overwrites it stands in front, and that nothing reaches the API around it (lib/link-host.ts).
 */
import ipaddr from "ipaddr.js";

export const VIEWER_ADDRESS = "cloudfront-viewer-address";

/** The address of a `CloudFront-Viewer-Address` value, or null when it holds none. */
export const viewerAddressOf = (value: string | undefined): string | null => {
  const text = value?.trim();
  if (!text) return null;
  const bracketed = /^\[([^\]]+)\]:\d{1,5}$/.exec(text);
  // Without brackets the port is whatever follows the last colon.
  const address = bracketed ? bracketed[1] : text.replace(/:\d{1,5}$/, "");
  // Four-part IPv4 only: ipaddr.js would also take shorthands such as `1.2.3`.
  const valid =
    address !== undefined &&
    (ipaddr.IPv4.isValidFourPartDecimal(address) || ipaddr.IPv6.isValid(address));
  return valid ? ipaddr.parse(address).toString() : null;
};

/**
 * The caller's address: the viewer's, from the distribution's header, when `trusted`; else (or
 * when the header holds none) the address API Gateway saw.
 */
export const callerAddress = (
  headers: Readonly<Record<string, string | undefined>>,
  sourceIp: string | null,
  trusted: boolean,
): string | null => (trusted ? viewerAddressOf(headers[VIEWER_ADDRESS]) : null) ?? sourceIp;
