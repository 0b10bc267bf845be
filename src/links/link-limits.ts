/**
 * The bounds of a link's fields: the service's rule (./link-request.ts), the touches a link's
 * fields fill, and the dashboard's inputs, which stop at the same lengths.
 */
export const LINK_LIMITS = {
  maxFieldLength: 200,
  maxPathLength: 1_000,
  maxUrlLength: 2_048,
  /**
   * A link's own URL, as it is shared: half the 8,192 bytes CloudFront takes in front of the
   * link host on AWS (and a quarter of the 16 KiB the embedded listener takes), so a tap on it
   * is always taken, Chrome's repeat of it with its hints included.
   */
  maxLinkUrlLength: 4_096,
  maxParams: 50,
  maxParamKeyLength: 64,
  maxParamValueLength: 500,
  // What the cards of chats and feeds show whole; longer, they cut it.
  maxPreviewTitleLength: 100,
  maxPreviewDescriptionLength: 300,
} as const;
