/** How links and touches store what they credit (AdFields): one shape for both items. */
import * as z from "zod";

const text = z.string().nullable();

export const adFieldsItem = {
  mediaSource: z.string(),
  campaignId: text,
  campaignName: text,
  adsetId: text,
  adsetName: text,
  adId: text,
  adName: text,
};
