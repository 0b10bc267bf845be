import { describe, expect, it } from "vitest";
import { callerAddressFrom, DEFAULT_TRUST_PROXY, parseTrustProxy } from "./trust-proxy.ts";

describe("the caller's address behind proxies", () => {
  const loopback = callerAddressFrom(DEFAULT_TRUST_PROXY);

  it("believes a loopback peer's header, taking the address its hop appended", () => {
    expect(loopback("127.0.0.1", ["203.0.113.7"])).toBe("203.0.113.7");
    // A client wrote the left one itself; the proxy appended the right one.
    expect(loopback("127.0.0.1", ["198.51.100.1, 203.0.113.7"])).toBe("203.0.113.7");
    expect(loopback("::1", ["203.0.113.7"])).toBe("203.0.113.7");
    // Two proxies on this machine: past both to the first address that is not one.
    expect(loopback("127.0.0.1", ["203.0.113.7, 127.0.0.1"])).toBe("203.0.113.7");
  });

  it("ignores the header of any other peer", () => {
    expect(loopback("192.0.2.5", ["203.0.113.7"])).toBe("192.0.2.5");
    expect(loopback("127.0.0.1", [])).toBe("127.0.0.1");
  });

  it("trusts every peer, none, or the ranges the setting names", () => {
    expect(callerAddressFrom(true)("192.0.2.5", ["198.51.100.1, 203.0.113.7"])).toBe(
      "198.51.100.1",
    );
    expect(callerAddressFrom(false)("127.0.0.1", ["203.0.113.7"])).toBe("127.0.0.1");
    const lan = callerAddressFrom(parseTrustProxy("10.0.0.0/8, loopback"));
    expect(lan("10.1.2.3", ["203.0.113.7"])).toBe("203.0.113.7");
    expect(lan("192.0.2.5", ["203.0.113.7"])).toBe("192.0.2.5");
  });

  it("reads the setting, loopback when unset, and refuses a range that is none", () => {
    expect(parseTrustProxy(undefined)).toEqual(["loopback"]);
    expect(parseTrustProxy("true")).toBe(true);
    expect(parseTrustProxy("false")).toBe(false);
    expect(parseTrustProxy("none")).toBe(false);
    // Spaces around the value and its parts, and an empty part, as a hand-written list has.
    expect(parseTrustProxy(" true ")).toBe(true);
    expect(parseTrustProxy(" 10.0.0.0/8 ,, loopback, ")).toEqual(["10.0.0.0/8", "loopback"]);
    expect(() => parseTrustProxy("10.0.0.0/99")).toThrow(/ATTRIBUTION_TRUST_PROXY/);
  });
});
