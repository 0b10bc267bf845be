/** An app's links: what the link host reads on every tap, and the API and CLI manage. */
import type { TouchCost } from "../domain/touch.ts";

/** What a link or a touch credits: the source, and the campaign, ad set and ad it names. */
export interface AdFields {
  readonly mediaSource: string;
  readonly campaignId: string | null;
  readonly campaignName: string | null;
  readonly adsetId: string | null;
  readonly adsetName: string | null;
  readonly adId: string | null;
  readonly adName: string | null;
}

export interface Link extends AdFields {
  /** The one path segment of the link's URL. */
  readonly deeplinkId: string;
  readonly appId: string;
  /** The whole URL to put in an ad, fixed when the link is made. */
  readonly url: string;
  readonly deepLinkPath: string | null;
  /** Custom parameters; the URL's query carries them and `deep_link_path`. */
  readonly params: Readonly<Record<string, string>>;
  readonly androidUrl: string | null;
  readonly iosUrl: string | null;
  readonly webUrl: string | null;
  /** A disabled link still sends a tap to the web destination, but records nothing. */
  readonly disabled: boolean;
  /** Every tap gets the link's landing page (store buttons, a QR code) instead of a redirect. */
  readonly landingPage: boolean;
  /**
   * A web destination gets the tapped URL's parameters it lacks (a campaign's `utm_*`, a
   * network's `gclid`); false sends it as written.
   */
  readonly forwardParams: boolean;
  /** What the cards of chats and feeds show of the link; null takes the app's default. */
  readonly previewTitle: string | null;
  readonly previewDescription: string | null;
  readonly previewImageUrl: string | null;
  /** What each click of the link costs, or its install (CPI); null: none said. */
  readonly cost: TouchCost | null;
  readonly createdAt: string;
}

/** What may change of a link once made; each field left out stays as it is. */
export type LinkChange = Partial<
  Pick<
    Link,
    | "disabled"
    | "androidUrl"
    | "iosUrl"
    | "webUrl"
    | "landingPage"
    | "forwardParams"
    | "previewTitle"
    | "previewDescription"
    | "previewImageUrl"
    | "cost"
  >
>;

/** A page of an app's links, newest first, and the cursor of the next page (null: no more). */
export interface LinkPage {
  readonly links: readonly Link[];
  readonly next: string | null;
}

export interface LinkStore {
  /** Stores a new link; false when its id is taken (the caller makes another). */
  create(link: Link): Promise<boolean>;
  get(deeplinkId: string): Promise<Link | undefined>;
  /** `after` is a page's `next`; a cursor that is not one is a ValidationError. */
  listByApp(appId: string, page: { limit: number; after?: string }): Promise<LinkPage>;
  /** The link with the change made; undefined when the app has no such link. */
  update(appId: string, deeplinkId: string, change: LinkChange): Promise<Link | undefined>;
}
