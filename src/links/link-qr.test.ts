import QRCode from "qrcode";
import { describe, expect, it } from "vitest";
import { LINK_QR_CORRECTION, linkQr, QR_TAP_PARAM } from "./link-qr.ts";

const LINK = "https://go.example.com/Kx3v9QpZ2aQ";

describe("a link's QR code", () => {
  it("holds the link as shared, its query the deep link an installed app reads", () => {
    const url = `${LINK}?deep_link_path=/level/3&${QR_TAP_PARAM}=1#top`;
    const qr = linkQr(url);
    expect(qr.text).toBe(url);
    expect(qr.modules).toBe(
      QRCode.create(url, { errorCorrectionLevel: LINK_QR_CORRECTION }).modules.size,
    );
    // Holding more, the code has more modules a side.
    expect(linkQr(`${LINK}?deep_link_path=/${"x".repeat(400)}`).modules).toBeGreaterThan(
      qr.modules,
    );
  });

  it("holds the bare link when the link is longer than any code holds, its QR mark kept", () => {
    const long = `${LINK}?deep_link_path=/${"x".repeat(3000)}&${QR_TAP_PARAM}=1#top`;
    expect(linkQr(long).text).toBe(`${LINK}?${QR_TAP_PARAM}=1`);
    // No mark, none added.
    expect(linkQr(`${LINK}?deep_link_path=/${"x".repeat(3000)}#top`).text).toBe(LINK);
    expect(linkQr(long).modules).toBe(linkQr(`${LINK}?${QR_TAP_PARAM}=1`).modules);
  });
});
