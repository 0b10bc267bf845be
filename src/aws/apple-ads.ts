/** Apple's AdServices API, which resolves iOS installs' Apple Ads tokens. */
import { createAdServicesClient } from "../adapters/apple/ad-services.ts";
import { type Provider, variable } from "./provider.ts";

export const appleAds: Provider = (env) => ({
  searchAds: createAdServicesClient({ url: variable(env, "APPLE_ADS_URL") }),
});
