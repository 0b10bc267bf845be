/**
 * The demo's traffic for its Android app, driven into a test runtime as `attribution demo`
 * drives it into a running service (src/cli/commands/demo.ts): the app made with its link
 * settings, then links, network touches, taps, installs and events from each device's own
 * address (the runtime must trust X-Forwarded-For), and every install's attribution read back.
 */
import { createCountryResolver } from "../../../src/adapters/geoip/country-resolver.ts";
import { createApp } from "../../../src/apps/registration.ts";
import { DEMO_APPS } from "../../../src/cli/commands/demo.ts";
import { findAddresses } from "../../../src/demo/addresses.ts";
import { type AppOutcome, createDemoDriver } from "../../../src/demo/drive.ts";
import { generateDemo } from "../../../src/demo/generate.ts";
import { MARKETS } from "../../../src/demo/markets.ts";
import { createRandom } from "../../../src/demo/prng.ts";
import { withLinkSettings } from "../../../src/links/app-settings.ts";
import type { TestRuntime } from "../../support/runtime.ts";

export interface DemoTraffic {
  readonly appId: string;
  readonly appName: string;
  /** The app's server key, for the export. */
  readonly serverKey: string;
  /** The UTC days the traffic spans, from the first install's day to the day it was sent. */
  readonly days: { readonly from: string; readonly to: string };
  readonly outcome: AppOutcome;
}

export const driveDemoTraffic = async (
  rt: TestRuntime,
  options: { days: number; installs: number; seed: number },
): Promise<DemoTraffic> => {
  const demo = DEMO_APPS.find((app) => app.platform === "android");
  if (!demo) throw new Error("the demo has no Android app");
  if (!rt.config.trustProxy) throw new Error("the demo's devices need trustProxy: true");
  const { app, keys } = await createApp(
    { appId: demo.appId, name: demo.appName, platform: demo.platform },
    rt.stores,
  );
  await rt.stores.apps.update(app.appId, (made) => withLinkSettings(made, { webUrl: demo.webUrl }));
  const key = (kind: string) => keys.find((k) => k.kind === kind)?.key ?? "";
  const end = new Date();
  // The days the traffic spans; purchases are priced in currencies the runtime's rates
  // convert on each of them (generateDemo), so every purchase counts as revenue.
  const days = Array.from({ length: options.days + 1 }, (_, back) =>
    new Date(end.getTime() - back * 86_400_000).toISOString().slice(0, 10),
  );
  const [traffic] = generateDemo([demo], {
    days: options.days,
    installs: options.installs,
    end,
    seed: options.seed,
    fx: rt.fx,
    addresses: findAddresses(
      MARKETS.map((market) => market.country),
      await createCountryResolver(rt.config.geoipDatabase),
      createRandom(options.seed),
    ),
  });
  if (!traffic) throw new Error("the demo generated no traffic");
  const drive = createDemoDriver(
    { apiUrl: rt.url, linkHostUrl: rt.linkUrl, sdkKey: key("sdk"), serverKey: key("server") },
    () => {},
  );
  const outcome = await drive(traffic);
  return {
    appId: demo.appId,
    appName: demo.appName,
    serverKey: key("server"),
    // To the day the drive ended, not began: its live installs open at the end, maybe after
    // midnight.
    days: { from: days.at(-1) ?? "", to: new Date().toISOString().slice(0, 10) },
    outcome,
  };
};
