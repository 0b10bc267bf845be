/** A link as the store keeps it, for tests: every field set, overridable. */
import type { Link } from "../ports/links.ts";
import { NO_CAMPAIGN } from "../touches/touch.ts";

export const testLink = (overrides: Partial<Link> = {}): Link => ({
  deeplinkId: "Kx3v9QpZ2aQ",
  appId: "com.example.game",
  url: "https://go.example.com/Kx3v9QpZ2aQ",
  mediaSource: "network_a",
  ...NO_CAMPAIGN,
  deepLinkPath: null,
  params: {},
  androidUrl: null,
  iosUrl: null,
  webUrl: null,
  disabled: false,
  landingPage: false,
  forwardParams: true,
  previewTitle: null,
  previewDescription: null,
  previewImageUrl: null,
  cost: null,
  createdAt: "2026-11-01T00:00:00.000Z",
  ...overrides,
});
