import { describe, expect, it } from "vitest";
import { ipMatchKey, isPublicIp, normalizeIp, truncatedIp } from "./ip.ts";

describe("IP addresses of touches", () => {
  it("normalizes, and reads an IPv4-mapped IPv6 address as its IPv4", () => {
    expect(normalizeIp(" 81.2.69.142 ")).toBe("81.2.69.142");
    expect(normalizeIp("::ffff:81.2.69.142")).toBe("81.2.69.142");
    expect(normalizeIp("2A00:1450:4001:080B::200E")).toBe("2a00:1450:4001:80b::200e");
    expect(normalizeIp("not an ip")).toBeNull();
    expect(normalizeIp("")).toBeNull();
    expect(normalizeIp(null)).toBeNull();
  });

  it("keys IPv4 whole and IPv6 by its /64", () => {
    expect(ipMatchKey("81.2.69.142")).toBe("81.2.69.142");
    expect(ipMatchKey("2a00:1450:4001:80b::200e")).toBe("2a00:1450:4001:80b::/64");
    expect(ipMatchKey("2a00:1450:4001:80b:1234:5678:9abc:def0")).toBe(
      ipMatchKey("2a00:1450:4001:80b::1"),
    );
    expect(ipMatchKey("2a00:1450:4001:80c::1")).not.toBe(ipMatchKey("2a00:1450:4001:80b::1"));
    expect(ipMatchKey("nope")).toBeNull();
  });

  it("truncates for the lake: IPv4 to /24, IPv6 to /48", () => {
    expect(truncatedIp("81.2.69.142")).toBe("81.2.69.0");
    expect(truncatedIp("2a00:1450:4001:80b::200e")).toBe("2a00:1450:4001::");
    expect(truncatedIp(undefined)).toBeNull();
  });

  it.each([
    ["10.1.2.3", false],
    ["172.16.0.9", false],
    ["192.168.1.20", false],
    ["127.0.0.1", false],
    ["169.254.10.1", false],
    ["100.64.12.1", false],
    ["100.127.255.254", false],
    ["::1", false],
    ["fe80::1", false],
    ["fd12:3456::1", false],
    ["2001:db8::1", false],
    ["81.2.69.142", true],
    ["100.128.0.1", true],
    ["2a00:1450:4001:80b::200e", true],
  ])("says whether %s is a public address (%s)", (ip, expected) => {
    expect(isPublicIp(ip)).toBe(expected);
  });
});
