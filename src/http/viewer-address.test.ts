import { describe, expect, it } from "vitest";
import { callerAddress, VIEWER_ADDRESS, viewerAddressOf } from "./viewer-address.ts";

describe("CloudFront's viewer address", () => {
  it("reads an IPv4 address and its port", () => {
    expect(viewerAddressOf("1.2.3.4:443")).toBe("1.2.3.4");
    expect(viewerAddressOf(" 198.51.100.10:46532 ")).toBe("198.51.100.10");
    expect(viewerAddressOf("1.2.3.4")).toBe("1.2.3.4");
  });

  it("reads an IPv6 address, as CloudFront writes it (no brackets) and bracketed", () => {
    expect(viewerAddressOf("[2001:db8::1]:443")).toBe("2001:db8::1");
    expect(viewerAddressOf("2001:db8::1:443")).toBe("2001:db8::1");
    expect(viewerAddressOf("2001:0db8:0000:0000:0000:0000:0000:0001:61338")).toBe("2001:db8::1");
  });

  it("holds no address when the value is none", () => {
    for (const value of [
      undefined,
      "",
      "   ",
      "example.com:443",
      "[2001:db8::1]",
      "1.2.3:443",
      // Text around a bracketed address: the whole value is the address and its port.
      "x[2001:db8::1]:443",
      "[2001:db8::1]:443x",
    ]) {
      expect(viewerAddressOf(value), String(value)).toBeNull();
    }
  });

  it("is the caller's address only when trusted, else the one API Gateway saw", () => {
    const headers = { [VIEWER_ADDRESS]: "81.2.69.142:443" };
    expect(callerAddress(headers, "130.176.98.7", true)).toBe("81.2.69.142");
    expect(callerAddress(headers, "130.176.98.7", false)).toBe("130.176.98.7");
    expect(callerAddress({}, "130.176.98.7", true)).toBe("130.176.98.7");
    expect(callerAddress({ [VIEWER_ADDRESS]: "junk" }, null, true)).toBeNull();
  });
});
