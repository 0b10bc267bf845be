/**
 * What a QR code of a link holds, on the landing page and in the dashboard alike: the link as
 * shared, whose query is the deep link an installed app reads; else, for a link longer than any
 * QR code holds, the bare link (its id on its host), whose tap is still the same link's click.
 */
import QRCode from "qrcode";

export const LINK_QR_CORRECTION = "M";

/** Screen pixels a module at least, so that a long link's dense code still scans. */
export const LINK_QR_MODULE_PX = 3;

export interface LinkQr {
  readonly text: string;
  /** Modules a side, without the quiet zone. */
  readonly modules: number;
}

const bareLink = (linkUrl: string): string => {
  const bare = new URL(linkUrl);
  bare.search = "";
  bare.hash = "";
  return bare.href;
};

export const linkQr = (linkUrl: string): LinkQr => {
  const encode = (text: string): LinkQr => ({
    text,
    modules: QRCode.create(text, { errorCorrectionLevel: LINK_QR_CORRECTION }).modules.size,
  });
  try {
    return encode(linkUrl);
  } catch {
    // More than a QR code holds.
    return encode(bareLink(linkUrl));
  }
};
