/**
 * What a QR code of a link holds, on the landing page and in the dashboard alike: the link as
 * shared, whose query is the deep link an installed app reads; else, for a link longer than any
 * QR code holds, the bare link (its id on its host), whose tap is still the same link's click.
 */
import QRCode from "qrcode";

export const LINK_QR_CORRECTION = "M";

/**
 * The query key a landing page's QR code adds to the link for a desktop's tapper: the phone's
 * tap is the same person's second, which the ad network did not charge for, so it carries no
 * per-click or per-impression cost (src/touches/clicks.ts). Kept on the bare link too.
 */
export const QR_TAP_PARAM = "service_qr";

/** Screen pixels a module at least, so that a long link's dense code still scans. */
export const LINK_QR_MODULE_PX = 3;

export interface LinkQr {
  readonly text: string;
  /** Modules a side, without the quiet zone. */
  readonly modules: number;
}

const bareLink = (linkUrl: string): string => {
  const bare = new URL(linkUrl);
  const mark = bare.searchParams.get(QR_TAP_PARAM);
  bare.search = "";
  bare.hash = "";
  if (mark !== null) bare.searchParams.set(QR_TAP_PARAM, mark);
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
