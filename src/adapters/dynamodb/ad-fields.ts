/**
 * How links and touches store what they credit (AdFields), and what a touch costs: one shape
 * for the items of links, touches and attributions.
 */
import * as z from "zod";
import { COST_MODELS } from "../../domain/touch.ts";

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

/** What a touch, a link or an attribution costs (TouchCost), or null. */
export const costItem = z
  .object({ model: z.enum(COST_MODELS), value: z.number(), currency: z.string() })
  .nullable();
