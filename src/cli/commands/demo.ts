/**
 * Fills the service with realistic demo traffic for two apps through its own front doors:
 * links, ad networks' touches, taps on the link host, installs and events from each device's
 * address. The running service of the data folder takes it (started with
 * ATTRIBUTION_TRUST_PROXY=true, so each device's address counts); without one, the demo runs
 * the service in this process for the length of the command.
 */
import { SingleBar } from "cli-progress";
import { createCountryResolver } from "../../adapters/geoip/country-resolver.ts";
import { createApp, issueKey } from "../../apps/registration.ts";
import { embeddedConfig, GEOIP_SETTING } from "../../config/embedded.ts";
import { findAddresses } from "../../demo/addresses.ts";
import { type AppOutcome, createDemoDriver, type Found, type Planned } from "../../demo/drive.ts";
import { type DemoApp, generateDemo } from "../../demo/generate.ts";
import { MARKETS } from "../../demo/markets.ts";
import { createRandom } from "../../demo/prng.ts";
import { dataPaths, runningService } from "../../embedded/data-dir.ts";
import { loadRates, startEmbeddedRuntime } from "../../embedded/runtime.ts";
import { withLinkSettings } from "../../links/app-settings.ts";
import { withLocalStores } from "../local-data.ts";
import { printOwner } from "./start.ts";

export const DEMO_APPS: readonly (DemoApp & { readonly webUrl: string })[] = [
  {
    appId: "com.example.game",
    appName: "Example Game",
    platform: "android",
    webUrl: "https://game.example.com/",
  },
  {
    appId: "com.example.shop",
    appName: "Example Shop",
    platform: "ios",
    webUrl: "https://shop.example.com/",
  },
];

/** Where the demo sends its traffic: the running service, or one of its own for the command. */
const serviceFor = async (dataDir: string) => {
  const running = await runningService(dataDir);
  if (running) {
    if (running.trustProxy === false) {
      console.warn(
        "The running service trusts no X-Forwarded-For (ATTRIBUTION_TRUST_PROXY=false), so every " +
          "device seems to connect from 127.0.0.1: installs get no country and none is matched by " +
          "IP and device. Restart it without that setting (loopback peers are trusted by default).",
      );
    }
    return {
      apiUrl: running.url,
      linkHostUrl: running.linkUrl,
      running: true,
      stop: async () => {},
    };
  }
  // Free ports and the devices' own addresses; no rate refresh for the length of a command.
  const runtime = await startEmbeddedRuntime(
    embeddedConfig(process.env, {
      dataDir,
      port: 0,
      linkPort: 0,
      trustProxy: true,
      fxFeedUrl: null,
    }),
  );
  // A new data folder: this start made the owner account, whose password no later start shows.
  printOwner(runtime.owner);
  // Stopping it delivers what its streams hold to the lake.
  return {
    apiUrl: runtime.url,
    linkHostUrl: runtime.linkUrl,
    running: false,
    stop: () => runtime.stop(),
  };
};

const FOUND_COLUMNS: readonly Found[] = ["network", "geo", "organic", "other"];

const printOutcome = (appId: string, outcome: AppOutcome) => {
  console.log(
    `\n${appId}: ${outcome.installs} installs, ${outcome.events} events, ${outcome.sessions} ` +
      `sessions, ${outcome.touches} touches reported by networks, ${outcome.taps} taps on its ` +
      `links (and ${outcome.previews} fetches by chats' preview crawlers, which count no click), ` +
      `${outcome.costRows} cost rows.`,
  );
  console.log(
    `  ${"caused by".padEnd(16)}${FOUND_COLUMNS.map((f) => `found ${f}`.padStart(15)).join("")}`,
  );
  const planned: readonly Planned[] = [
    "link tap",
    "ad id click",
    "ad id view",
    "ip and device",
    "organic",
  ];
  for (const cause of planned) {
    const row = outcome.matrix.get(cause);
    if (!row) continue;
    console.log(
      `  ${cause.padEnd(16)}${FOUND_COLUMNS.map((f) => String(row.get(f) ?? 0).padStart(15)).join("")}`,
    );
  }
  for (const [path, count] of outcome.deferredDeepLinks) {
    const installs = count === 1 ? "install" : "installs";
    console.log(`  ${count} new ${installs} opened at ${path} (its deferred deep link)`);
  }
};

interface DemoKeys {
  readonly sdkKey: string;
  readonly serverKey: string;
  readonly keyIds: readonly string[];
}

/** Creates the demo apps that are missing (printing their keys once) and keys for this run. */
const issueDemoKeys = (dataDir: string) =>
  withLocalStores(dataDir, async (stores) => {
    const issued = new Map<string, DemoKeys>();
    for (const demo of DEMO_APPS) {
      if (!(await stores.apps.get(demo.appId))) {
        const { app, keys } = await createApp(
          { appId: demo.appId, name: demo.appName, platform: demo.platform },
          stores,
        );
        await stores.apps.update(app.appId, (made) =>
          withLinkSettings(made, { webUrl: demo.webUrl }),
        );
        console.log(`Created demo app ${demo.appId}; its keys (shown once):`);
        for (const key of keys) console.log(`  ${key.kind.padEnd(7)} ${key.key}`);
      }
      const sdk = await issueKey(demo.appId, "sdk", stores.keys);
      const server = await issueKey(demo.appId, "server", stores.keys);
      issued.set(demo.appId, {
        sdkKey: sdk.key,
        serverKey: server.key,
        keyIds: [sdk.keyId, server.keyId],
      });
    }
    return issued;
  });

const revokeDemoKeys = (dataDir: string, keys: ReadonlyMap<string, DemoKeys>) =>
  withLocalStores(dataDir, async (stores) => {
    const at = new Date().toISOString();
    for (const { keyIds } of keys.values()) {
      for (const keyId of keyIds) await stores.keys.revoke(keyId, at);
    }
  });

/** Generates each app's traffic and drives it through the service; what each app got. */
const sendTraffic = async (
  service: { apiUrl: string; linkHostUrl: string },
  keys: ReadonlyMap<string, DemoKeys>,
  options: { days: number; installs: number; seed: number; dataDir: string },
): Promise<[string, AppOutcome][]> => {
  const traffic = generateDemo(DEMO_APPS, {
    days: options.days,
    installs: options.installs,
    end: new Date(),
    seed: options.seed,
    // The rates the service converts with: imported or refreshed ones, else those it ships.
    fx: await loadRates(dataPaths(options.dataDir).fxRates),
    addresses: findAddresses(
      MARKETS.map((m) => m.country),
      await createCountryResolver(embeddedConfig(process.env).geoipDatabase, {
        setting: GEOIP_SETTING,
      }),
      createRandom(options.seed),
    ),
  });
  const total = traffic.reduce((sum, app) => sum + app.installs.length + app.live.length, 0);
  const bar = new SingleBar({
    format: "Installs sent {bar} {value}/{total}",
    clearOnComplete: true,
    stream: process.stderr,
  });
  bar.start(total, 0);
  const outcomes: [string, AppOutcome][] = [];
  try {
    for (const app of traffic) {
      const appKeys = keys.get(app.app.appId);
      if (!appKeys) throw new Error(`no demo keys for ${app.app.appId}`);
      const { sdkKey, serverKey } = appKeys;
      const drive = createDemoDriver({ ...service, sdkKey, serverKey }, (step) =>
        bar.increment(step),
      );
      outcomes.push([app.app.appId, await drive(app)]);
    }
  } finally {
    bar.stop();
  }
  return outcomes;
};

export const demoCommand = async (options: {
  dataDir: string;
  days: number;
  installs: number;
  seed: number;
}) => {
  const service = await serviceFor(options.dataDir);
  try {
    // Keys of the demo's own, for the length of the run only.
    const keys = await issueDemoKeys(options.dataDir);
    try {
      const outcomes = await sendTraffic(service, keys, options);
      for (const [appId, outcome] of outcomes) printOutcome(appId, outcome);
      console.log(
        "\nEvery attribution above is the service's own: the demo sent only links, touches, " +
          "taps, installs and events.",
      );
    } finally {
      await revokeDemoKeys(options.dataDir, keys);
    }
  } finally {
    await service.stop();
  }
  if (service.running) {
    console.log("The running service writes them to the lake within its flush interval.");
  }
};
